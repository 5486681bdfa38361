// Small helpers over Nova's workspace: find an open editor or document by
// path, read a document's whole text, and describe a selection.

"use strict";

const { positionAt } = require("./positions.js");

/** sameFile compares two absolute paths as Nova and Claude spell them. */
function sameFile(a, b) {
  if (!a || !b) return false;
  return nova.path.normalize(a) === nova.path.normalize(b);
}

/** editorFor returns an open TextEditor showing filePath (the active one first), or null. */
function editorFor(filePath) {
  const active = nova.workspace.activeTextEditor;
  if (active && sameFile(active.document.path, filePath)) return active;
  for (const editor of nova.workspace.textEditors) {
    if (sameFile(editor.document.path, filePath)) return editor;
  }
  return null;
}

/** documentFor returns the open TextDocument of filePath, or null. */
function documentFor(filePath) {
  const editor = editorFor(filePath);
  if (editor) return editor.document;
  for (const doc of nova.workspace.textDocuments || []) {
    if (sameFile(doc.path, filePath)) return doc;
  }
  return null;
}

/** fullText returns all of a document's text. */
function fullText(document) {
  return document.getTextInRange(new Range(0, document.length));
}

/**
 * selectionOf describes editor's primary selection in the protocol's
 * Selection shape, positions in UTF-16 code units; null for a document
 * without a path (untitled).
 */
function selectionOf(editor) {
  const doc = editor.document;
  if (!doc.path) return null;
  const range = editor.selectedRange;
  // The prefix up to the end is enough to place both ends.
  const prefix = doc.getTextInRange(new Range(0, range.end));
  const start = positionAt(prefix, range.start);
  const end = positionAt(prefix, range.end);
  const text = prefix.slice(range.start, range.end);
  return {
    text,
    filePath: doc.path,
    selection: { start, end, isEmpty: range.start === range.end },
  };
}

module.exports = { sameFile, editorFor, documentFor, fullText, selectionOf };
