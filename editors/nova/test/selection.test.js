// Selection and at-mentions reach a Claude-side client in UTF-16 positions.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const { setup, readLock, waitFor } = require("./support/harness.js");
const { ClaudeClient } = require("./support/claude.js");

async function connect(env) {
  const { port, lock } = await readLock(env.configDir);
  const claude = await ClaudeClient.connect(port, lock.authToken);
  env.clients.push(claude);
  return claude;
}

const sent = (env, method) => env.standin.wire.filter((w) => w.from === "editor" && w.msg.method === method);

// "日本語\r\n" is 5 code units; "🎉" is a surrogate pair (2 units).
const TEXT = "日本語\r\n🎉 x y\nlast\n";

test("a non-ASCII selection reaches Claude in UTF-16 code units", async (t) => {
  const env = await setup(t, { files: { "a.txt": TEXT } });
  const claude = await connect(env);
  const editor = await env.standin.user.open(env.file("a.txt"));

  // Select "本語".
  env.standin.user.select(editor, 1, 3);
  const first = await claude.notification("selection_changed", (p) => p.text === "本語");
  // docs/editor-protocol.md: `"utf-16"` = UTF-16 code units (Nova, VS Code).
  assert.deepStrictEqual(first.selection, { start: { line: 0, character: 1 }, end: { line: 0, character: 3 }, isEmpty: false });
  assert.strictEqual(first.filePath, env.file("a.txt"));

  // Select "x" after the emoji on the CRLF-terminated line's successor.
  env.standin.user.select(editor, 8, 9);
  const second = await claude.notification("selection_changed", (p) => p.text === "x");
  assert.deepStrictEqual(second.selection, { start: { line: 1, character: 3 }, end: { line: 1, character: 4 }, isEmpty: false });

  // A selection that takes the line break ends at character 0 of the next line.
  env.standin.user.select(editor, 5, 12);
  const third = await claude.notification("selection_changed", (p) => p.text === "🎉 x y\n");
  assert.deepStrictEqual(third.selection.end, { line: 2, character: 0 });

  // A cursor: "isEmpty: true, text: "", end = start".
  env.standin.user.select(editor, 12);
  const cursor = await claude.notification("selection_changed", (p) => p.selection.isEmpty);
  assert.deepStrictEqual(cursor, {
    text: "",
    filePath: env.file("a.txt"),
    fileUrl: cursor.fileUrl,
    selection: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 }, isEmpty: true },
  });

  // getLatestSelection returns what the editor last reported.
  const latest = JSON.parse((await claude.callTool("getLatestSelection")).content[0].text);
  assert.deepStrictEqual(latest.selection.start, { line: 2, character: 0 });
});

test("a burst of selection changes is sent once, with the last selection", async (t) => {
  const env = await setup(t, { files: { "a.txt": TEXT } });
  await readLock(env.configDir);
  const editor = await env.standin.user.open(env.file("a.txt"));
  env.standin.user.select(editor, 1);
  await waitFor(() => sent(env, "selectionChanged").length > 0, "the first selectionChanged");
  const before = sent(env, "selectionChanged").length;
  // All in one tick: the debounce timer cannot fire in between.
  for (let i = 0; i < 8; i++) env.standin.user.select(editor, 0, i);
  await waitFor(() => sent(env, "selectionChanged").length > before, "the debounced selectionChanged");
  const after = sent(env, "selectionChanged");
  assert.strictEqual(after.length, before + 1);
  assert.strictEqual(after[after.length - 1].msg.params.text, TEXT.slice(0, 7));
});

test("each editor is subscribed once, however often Nova announces it", async (t) => {
  const env = await setup(t, { files: { "a.txt": TEXT }, open: ["a.txt"] });
  const editor = env.standin.editorFor(env.file("a.txt"));
  // Present at activation and announced again by onDidAddTextEditor.
  env.standin.user.reannounce(editor);
  env.standin.user.reannounce(editor);
  assert.strictEqual(editor._onSelection.size, 1);
});

test("Send Selection to Claude mentions the selected lines; Add File the whole file", async (t) => {
  const env = await setup(t, { files: { "a.txt": TEXT } });
  const claude = await connect(env);
  const editor = await env.standin.user.open(env.file("a.txt"));

  // Lines 1 and 2, ending at character 0 of line 3 (which is therefore not included).
  env.standin.user.select(editor, 5, 17);
  await env.standin.run("claude-ide-bridge.sendSelection", editor);
  // spec: at_mentioned lineStart/lineEnd "are 0-based, and lineEnd is the last selected line".
  const m = await claude.notification("at_mentioned");
  assert.deepStrictEqual(m, { filePath: env.file("a.txt"), lineStart: 1, lineEnd: 2 });

  await env.standin.run("claude-ide-bridge.addFile", editor);
  // facts: "Omit both lines for a whole file."
  const whole = await claude.notification("at_mentioned", (p) => p.lineStart === undefined);
  assert.deepStrictEqual(whole, { filePath: env.file("a.txt") });
});

test("a mention with no Claude connected is held and the user is told", async (t) => {
  const env = await setup(t, { files: { "a.txt": TEXT } });
  await readLock(env.configDir);
  const editor = await env.standin.user.open(env.file("a.txt"));
  await env.standin.run("claude-ide-bridge.addFile", editor);
  // docs/editor-protocol.md: "with none connected the mention is held for 30 s".
  assert.ok(env.standin.notifications.some((n) => /when it connects/.test(n.title)));
  const claude = await connect(env);
  const held = await claude.notification("at_mentioned");
  assert.deepStrictEqual(held, { filePath: env.file("a.txt") });
});
