// Nova addresses text by offset: UTF-16 code units from the start of the
// document. The editor protocol (positionEncoding "utf-16") wants 0-based
// {line, character} with character in UTF-16 code units of that line, as
// VS Code counts. These helpers convert between the two.
//
// A line break is "\r\n", "\n" or a lone "\r". "\r\n" is one break of two
// code units; an offset between its "\r" and "\n" maps to the end of the line.

"use strict";

const LF = 10;
const CR = 13;

/** positionAt returns the {line, character} of offset in text (clamped to the text). */
function positionAt(text, offset) {
  if (offset < 0) offset = 0;
  if (offset > text.length) offset = text.length;
  let line = 0;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    const c = text.charCodeAt(i);
    if (c === LF) {
      line++;
      lineStart = i + 1;
    } else if (c === CR) {
      if (text.charCodeAt(i + 1) === LF) {
        if (i + 1 === offset) return { line, character: i - lineStart };
        i++;
      }
      line++;
      lineStart = i + 1;
    }
  }
  return { line, character: offset - lineStart };
}

/**
 * offsetAt returns the offset of position in text. A line past the end gives
 * text.length; a character past the end of its line gives the end of the line
 * (before its break).
 */
function offsetAt(text, position) {
  let i = 0;
  for (let line = 0; line < position.line; line++) {
    while (i < text.length && text.charCodeAt(i) !== LF && text.charCodeAt(i) !== CR) i++;
    if (i >= text.length) return text.length;
    if (text.charCodeAt(i) === CR && text.charCodeAt(i + 1) === LF) i++;
    i++;
  }
  let end = i;
  while (end < text.length && text.charCodeAt(end) !== LF && text.charCodeAt(end) !== CR) end++;
  return Math.min(i + Math.max(0, position.character | 0), end);
}

/** lineCount counts lines as VS Code does: a trailing break starts one more (empty) line. */
function lineCount(text) {
  let n = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === LF) n++;
    else if (c === CR) {
      if (text.charCodeAt(i + 1) === LF) i++;
      n++;
    }
  }
  return n;
}

module.exports = { positionAt, offsetAt, lineCount };
