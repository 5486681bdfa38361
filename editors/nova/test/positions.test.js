// Pure tests of the offset <-> {line, character} conversion the extension
// uses for every position it sends or receives.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const { positionAt, offsetAt, lineCount } = require("../ClaudeIDEBridge.novaextension/Scripts/positions.js");

// docs/editor-protocol.md: "`"utf-16"` = UTF-16 code units (Nova, VS Code)".
// spec/000: "In 日本語, the position after 本 is character 6 here and 2 in VS Code."
test("non-ASCII counts UTF-16 code units", () => {
  const text = "日本語";
  assert.deepStrictEqual(positionAt(text, 2), { line: 0, character: 2 });
  assert.strictEqual(offsetAt(text, { line: 0, character: 2 }), 2);
});

test("a surrogate pair counts two", () => {
  const text = "a\n🎉x";
  // 🎉 is U+1F389: two UTF-16 code units, so x starts at character 2.
  assert.deepStrictEqual(positionAt(text, 4), { line: 1, character: 2 });
  assert.strictEqual(offsetAt(text, { line: 1, character: 2 }), 4);
  assert.strictEqual(text.slice(4, 5), "x");
});

test("LF, CRLF and lone CR each end a line", () => {
  const text = "ab\r\ncd\nef\rgh";
  assert.deepStrictEqual(positionAt(text, 4), { line: 1, character: 0 }); // c
  assert.deepStrictEqual(positionAt(text, 7), { line: 2, character: 0 }); // e
  assert.deepStrictEqual(positionAt(text, 10), { line: 3, character: 0 }); // g
  assert.deepStrictEqual(positionAt(text, text.length), { line: 3, character: 2 });
  assert.strictEqual(offsetAt(text, { line: 1, character: 0 }), 4);
  assert.strictEqual(offsetAt(text, { line: 2, character: 1 }), 8);
  assert.strictEqual(offsetAt(text, { line: 3, character: 1 }), 11);
});

test("an offset inside CRLF is the end of its line", () => {
  const text = "ab\r\ncd";
  assert.deepStrictEqual(positionAt(text, 2), { line: 0, character: 2 });
  assert.deepStrictEqual(positionAt(text, 3), { line: 0, character: 2 });
});

test("a selection that includes the line break ends at character 0 of the next line", () => {
  // spec/000: "a selection that includes a line break ends at character 0 of the next line, the way VS Code ends it"
  const text = "日本\r\nx";
  assert.deepStrictEqual(positionAt(text, 4), { line: 1, character: 0 });
});

test("offsetAt clamps past the end of a line and of the text", () => {
  const text = "ab\ncd";
  assert.strictEqual(offsetAt(text, { line: 0, character: 99 }), 2);
  assert.strictEqual(offsetAt(text, { line: 9, character: 0 }), text.length);
  assert.strictEqual(offsetAt(text, { line: 0, character: -3 }), 0);
});

test("round trip over every offset of a mixed text", () => {
  const text = "α\r\n日本語🎉\n\r\nend";
  for (let off = 0; off <= text.length; off++) {
    if (text[off - 1] === "\r" && text[off] === "\n") continue; // inside CRLF
    if (off > 0 && text.charCodeAt(off - 1) >= 0xd800 && text.charCodeAt(off - 1) < 0xdc00) continue; // inside a pair
    assert.strictEqual(offsetAt(text, positionAt(text, off)), off, `offset ${off}`);
  }
});

test("lineCount counts a trailing break as a new line", () => {
  assert.strictEqual(lineCount(""), 1);
  assert.strictEqual(lineCount("a"), 1);
  assert.strictEqual(lineCount("a\n"), 2);
  assert.strictEqual(lineCount("a\r\nb\rc"), 3);
});
