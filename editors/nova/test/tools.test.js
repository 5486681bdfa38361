// The other IDE tools, answered from the stand-in Nova through the real bridge.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { setup, readLock, waitFor } = require("./support/harness.js");
const { ClaudeClient } = require("./support/claude.js");

async function start(t, opts) {
  const env = await setup(t, opts);
  const { port, lock } = await readLock(env.configDir);
  env.claude = await ClaudeClient.connect(port, lock.authToken);
  env.clients.push(env.claude);
  return env;
}

const json = (res) => JSON.parse(res.content[0].text);

test("getDiagnostics and executeCode are unsupported and say so, naming Nova", async (t) => {
  const env = await start(t, { files: { "a.go": "package a\n" } });
  // Design note: "Returning a clear "unsupported" for the last four is fine".
  for (const [name, args] of [
    ["getDiagnostics", { uri: "file://" + env.file("a.go") }],
    ["getDiagnostics", {}],
    ["executeCode", { code: "print(1)" }],
  ]) {
    const res = await env.claude.callTool(name, args);
    assert.strictEqual(res.isError, true, name);
    assert.match(res.content[0].text, new RegExp(`${name}.*Nova`), name);
  }
  // The editor was never asked.
  assert.ok(!env.standin.wire.some((w) => w.msg.method === "getDiagnostics" || w.msg.method === "executeCode"));
});

test("openFile selects the text Claude named in a non-ASCII line", async (t) => {
  const line = "// 日本語 🎉 start here and end";
  const env = await start(t, { files: { "b.go": `package b\n${line}\nfunc b() {}\n` } });
  const res = await env.claude.callTool("openFile", {
    filePath: env.file("b.go"),
    startText: "start",
    endText: "end",
    makeFrontmost: false,
  });
  assert.ok(!res.isError, res.content[0].text);
  const editor = env.standin.nova.workspace.activeTextEditor;
  assert.strictEqual(editor.document.path, env.file("b.go"));
  // Offsets are UTF-16: the selected text is exactly from "start" to the end of "end".
  assert.strictEqual(editor.selectedText, "start here and end");
  const info = json(res);
  assert.strictEqual(info.lineCount, 4);
  assert.strictEqual(info.languageId, "go");
});

test("openFile of a missing file is a tool error, not a hang", async (t) => {
  const env = await start(t);
  const res = await env.claude.callTool("openFile", { filePath: env.file("nope.txt") });
  assert.strictEqual(res.isError, true);
  assert.match(res.content[0].text, /nope\.txt/);
});

test("getOpenEditors lists the user's files, not staged proposals", async (t) => {
  const env = await start(t, { files: { "a.go": "package a\n", "b.txt": "b\n" } });
  await env.standin.user.open(env.file("a.go"));
  const b = await env.standin.user.open(env.file("b.txt"));
  await env.standin.user.type(b, "changed\n");
  const diff = env.claude.callTool("openDiff", {
    old_file_path: env.file("a.go"),
    new_file_path: env.file("a.go"),
    new_file_contents: "package a // new\n",
    tab_name: "✻ [Claude Code] a.go (cc0001) ⧉",
  });
  await waitFor(() => env.standin.nova.workspace.textEditors.length === 3, "the proposal tab");
  const res = json(await env.claude.callTool("getOpenEditors"));
  const tabs = res.tabs || res.editors;
  const paths = tabs.map((x) => x.filePath || x.uri);
  assert.strictEqual(tabs.length, 2, JSON.stringify(tabs));
  assert.ok(paths.some((p) => p.endsWith("a.go")));
  const bt = tabs.find((x) => (x.filePath || x.uri).endsWith("b.txt"));
  assert.strictEqual(bt.isDirty, true);
  await env.claude.callTool("closeAllDiffTabs");
  await diff;
});

test("checkDocumentDirty and saveDocument follow Nova's document", async (t) => {
  const env = await start(t, { files: { "c.txt": "one\n" } });
  const closed = json(await env.claude.callTool("checkDocumentDirty", { filePath: env.file("c.txt") }));
  assert.strictEqual(closed.success, false);

  const editor = await env.standin.user.open(env.file("c.txt"));
  await env.standin.user.type(editor, "two 二\n");
  const dirty = json(await env.claude.callTool("checkDocumentDirty", { filePath: env.file("c.txt") }));
  assert.strictEqual(dirty.isDirty, true);

  const saved = json(await env.claude.callTool("saveDocument", { filePath: env.file("c.txt") }));
  assert.strictEqual(saved.success, true);
  assert.strictEqual(fs.readFileSync(env.file("c.txt"), "utf8"), "two 二\n");
  const clean = json(await env.claude.callTool("checkDocumentDirty", { filePath: env.file("c.txt") }));
  assert.strictEqual(clean.isDirty, false);
});

test("Close All Claude Diffs puts an accepted, unwritten edit back as unsaved changes", async (t) => {
  const env = await start(t, { files: { "d.txt": "old\n" } });
  const tab = "✻ [Claude Code] d.txt (dd0001) ⧉";
  const result = env.claude.callTool(
    "openDiff",
    { old_file_path: env.file("d.txt"), new_file_path: env.file("d.txt"), new_file_contents: "new\n", tab_name: tab },
    30000
  );
  const proposal = await waitFor(
    () => env.standin.nova.workspace.textEditors.find((e) => e.document.path.includes(`${path.sep}proposals${path.sep}`)),
    "the proposal tab"
  );
  await env.standin.user.save(proposal);
  await result;
  // Claude has not written the file yet; the user's "close all diffs" must not lose the edit.
  await env.standin.run("claude-ide-bridge.closeAllDiffs");
  const restored = env.standin.editorFor(env.file("d.txt"));
  assert.ok(restored, "d.txt was opened");
  assert.strictEqual(restored.document.text, "new\n");
  assert.strictEqual(restored.document.isDirty, true);
  assert.strictEqual(fs.readFileSync(env.file("d.txt"), "utf8"), "old\n");
});

test("a workspace path change reaches the lock file", async (t) => {
  const env = await start(t);
  const other = path.join(env.root, "other");
  fs.mkdirSync(other);
  env.standin.user.changePath(other);
  await waitFor(async () => {
    const { lock } = await readLock(env.configDir);
    return lock.workspaceFolders[0] === other;
  }, "the lock to name the new folder");
});
