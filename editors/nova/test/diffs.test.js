// openDiff as an editable proposal: save accepts with the saved text, closing
// the tab rejects, and the original file is never written by the editor.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { setup, readLock, waitFor } = require("./support/harness.js");
const { ClaudeClient } = require("./support/claude.js");

const ORIGINAL = "package main\n\n// 日本語 🎉\nfunc main() {}\n";
const PROPOSAL = "package main\n\n// 日本語 🎉 edited by Claude\nfunc main() { println(1) }\n";
const TAB = "✻ [Claude Code] main.go (aa7495) ⧉";

async function start(t, opts) {
  const env = await setup(t, Object.assign({ files: { "main.go": ORIGINAL } }, opts));
  const { port, lock } = await readLock(env.configDir);
  env.claude = await ClaudeClient.connect(port, lock.authToken);
  env.clients.push(env.claude);
  env.storage = path.join(env.root, "storage");
  return env;
}

function openDiff(env, tab, contents, file = "main.go") {
  return env.claude.callTool(
    "openDiff",
    { old_file_path: env.file(file), new_file_path: env.file(file), new_file_contents: contents, tab_name: tab },
    30000
  );
}

/** proposalEditor waits for the staged proposal of name to be open in Nova. */
function proposalEditor(env, name) {
  return waitFor(
    () =>
      env.standin.nova.workspace.textEditors.find(
        (e) => e.document.path.startsWith(env.storage + path.sep) && path.basename(e.document.path) === name
      ),
    `the proposal for ${name} to open`
  );
}

test("saving the proposal accepts it with the user's edits; the original is untouched", async (t) => {
  const env = await start(t);
  const result = openDiff(env, TAB, PROPOSAL);
  const editor = await proposalEditor(env, "main.go");
  const staged = editor.document.path;
  assert.strictEqual(editor.document.text, PROPOSAL);
  assert.strictEqual(fs.readFileSync(staged, "utf8"), PROPOSAL);

  const edited = PROPOSAL.replace("println(1)", "println(2) // 本");
  await env.standin.user.type(editor, edited);
  await env.standin.user.save(editor);
  const res = await result;
  // facts: "[{text:"FILE_SAVED"}, {text:<final file contents>}]: accepted with those contents (user edits included)".
  assert.deepStrictEqual(res.content.map((c) => c.text), ["FILE_SAVED", edited]);
  // facts: "The server must NOT write it". Neither must the editor (docs/editor-protocol.md).
  assert.strictEqual(fs.readFileSync(env.file("main.go"), "utf8"), ORIGINAL);

  // The CLI then calls close_tab: the bridge sends closeDiff, the staged file goes,
  // and the tab Nova cannot close stays with a word to the user.
  const closed = await env.claude.callTool("close_tab", { tab_name: TAB });
  assert.strictEqual(closed.content[0].text, "TAB_CLOSED");
  await waitFor(() => !fs.existsSync(staged), "the staged proposal to be removed");
  assert.ok(env.standin.nova.workspace.textEditors.includes(editor));
  assert.ok(env.standin.notifications.some((n) => /close the proposal tab yourself/.test(n.body)));
  assert.strictEqual(fs.readFileSync(env.file("main.go"), "utf8"), ORIGINAL);

  // A later save of the leftover tab decides nothing.
  await env.standin.user.save(editor);
  assert.strictEqual(env.standin.wire.filter((w) => w.msg.method === "diffAccepted").length, 1);
});

test("closing the proposal tab rejects the diff", async (t) => {
  const env = await start(t);
  const result = openDiff(env, TAB, PROPOSAL);
  const editor = await proposalEditor(env, "main.go");
  const staged = editor.document.path;
  await env.standin.user.type(editor, "whatever the user typed\n");
  env.standin.user.close(editor);
  const res = await result;
  // facts: "[{text:"DIFF_REJECTED"}, {text:<tab_name>}]: denied".
  assert.deepStrictEqual(res.content.map((c) => c.text), ["DIFF_REJECTED", TAB]);
  // docs/editor-protocol.md: "The bridge follows with closeDiff" → staged proposal removed.
  await waitFor(() => !fs.existsSync(staged), "the staged proposal to be removed");
  assert.strictEqual(fs.readFileSync(env.file("main.go"), "utf8"), ORIGINAL);
});

test("a proposal for a new file (Write) is accepted without creating the file", async (t) => {
  const env = await start(t);
  const tab = "✻ [Claude Code] new.txt (bb1234) ⧉";
  const result = openDiff(env, tab, "fresh 新しい\n", "new.txt");
  const editor = await proposalEditor(env, "new.txt");
  await env.standin.user.save(editor);
  const res = await result;
  assert.deepStrictEqual(res.content.map((c) => c.text), ["FILE_SAVED", "fresh 新しい\n"]);
  assert.ok(!fs.existsSync(env.file("new.txt")));
});

test("close_tab while the proposal is pending settles it, not as an accept", async (t) => {
  const env = await start(t);
  const result = openDiff(env, TAB, PROPOSAL);
  const editor = await proposalEditor(env, "main.go");
  const staged = editor.document.path;
  // facts: close_tab comes "when the user answers the permission prompt in the
  // terminal while the diff is still pending ... the server must close it and
  // settle it itself (never as an accept)".
  const closed = await env.claude.callTool("close_tab", { tab_name: TAB });
  assert.strictEqual(closed.content[0].text, "TAB_CLOSED");
  const res = await result;
  assert.notStrictEqual(res.content && res.content[0] && res.content[0].text, "FILE_SAVED");
  await waitFor(() => !fs.existsSync(staged), "the staged proposal to be removed");
  // Nova cannot close the tab: it stays, and the user is told.
  assert.ok(env.standin.nova.workspace.textEditors.includes(editor));
  assert.ok(env.standin.notifications.some((n) => /no longer waits/.test(n.title)));
  // Saving the leftover tab now accepts nothing.
  await env.standin.user.save(editor);
  assert.strictEqual(env.standin.wire.filter((w) => w.msg.method === "diffAccepted").length, 0);
});

test("closeAllDiffTabs succeeds, settles the pending proposal and removes it", async (t) => {
  const env = await start(t);
  const result = openDiff(env, TAB, PROPOSAL);
  const editor = await proposalEditor(env, "main.go");
  const staged = editor.document.path;
  const res = await env.claude.callTool("closeAllDiffTabs", {});
  // spec: closeAllDiffTabs returns CLOSED_${count}_DIFF_TABS.
  assert.ok(!res.isError);
  assert.match(res.content[0].text, /^CLOSED_\d+_DIFF_TABS$/);
  const settled = await result;
  assert.notStrictEqual(settled.content && settled.content[0] && settled.content[0].text, "FILE_SAVED");
  await waitFor(() => !fs.existsSync(staged), "the staged proposal to be removed");
  assert.strictEqual(fs.readFileSync(env.file("main.go"), "utf8"), ORIGINAL);
});

test("a diff for a file with unsaved changes in Nova is refused with a sentence", async (t) => {
  const env = await start(t);
  const original = await env.standin.user.open(env.file("main.go"));
  await env.standin.user.type(original, "unsaved\n");
  // docs/editor-protocol.md: refuse "(e.g. the file's buffer has unsaved changes)".
  let message = null;
  try {
    const res = await openDiff(env, TAB, PROPOSAL);
    if (res.isError) message = res.content[0].text;
  } catch (err) {
    message = err.message;
  }
  assert.match(message || "", /main\.go has unsaved changes/);
  assert.strictEqual(fs.readFileSync(env.file("main.go"), "utf8"), ORIGINAL);
  assert.ok(!env.standin.nova.workspace.textEditors.some((e) => e.document.path.startsWith(env.storage)));
});

test("the same tab_name again shows the new proposal in the tab already open", async (t) => {
  const env = await start(t);
  const first = openDiff(env, TAB, PROPOSAL);
  const editor = await proposalEditor(env, "main.go");
  const second = openDiff(env, TAB, "second proposal\n");
  await waitFor(() => editor.document.text === "second proposal\n", "the proposal to be replaced");
  await first.catch(() => {}); // settled by the replacement
  await env.standin.user.save(editor);
  const res = await second;
  assert.deepStrictEqual(res.content.map((c) => c.text), ["FILE_SAVED", "second proposal\n"]);
});

// Issue 25 item 6: every decision names its proposal (docs/editor-protocol.md, diffAccepted).
// The user saves an edit of the first proposal just as Claude replaces it under the same tab
// name: the save reaches the bridge after the replacement, carries the first proposal's number,
// is refused (-32001) and never accepts the second with the first's text; the second is accepted
// by its own save.
test("a save of a proposal Claude has just replaced never accepts the replacement", async (t) => {
  const env = await start(t);
  const first = openDiff(env, TAB, PROPOSAL);
  const editor = await proposalEditor(env, "main.go");
  const shown = env.standin.wire.filter((w) => w.msg.method === "showDiff").map((w) => w.msg.params.proposal);
  env.standin.hold = (m) => m.method === "diffAccepted";
  await env.standin.user.type(editor, "first, edited\n");
  await env.standin.user.save(editor);
  await waitFor(() => env.standin.held.length === 1, "the accept to be held");
  const second = openDiff(env, TAB, "second proposal\n");
  // The first was saved (decided), so the second comes in a tab of its own.
  const next = await waitFor(
    () => env.standin.nova.workspace.textEditors.find((e) => e !== editor && e.document.text === "second proposal\n"),
    "the second proposal to open"
  );
  assert.deepStrictEqual((await first).content.map((c) => c.text), ["DIFF_REJECTED", TAB]);
  env.standin.release();
  await waitFor(() => env.standin.notifications.some((n) => /Could not accept/.test(n.title)), "the refusal to be shown");
  const accepts = env.standin.wire.filter((w) => w.from === "editor" && w.msg.method === "diffAccepted");
  assert.strictEqual(accepts.length, 1);
  assert.strictEqual(accepts[0].msg.params.proposal, shown[0]);
  assert.strictEqual(typeof shown[0], "number");
  const refusal = env.standin.wire.find((w) => w.from === "bridge" && w.msg.method === undefined && w.msg.id === accepts[0].msg.id);
  assert.strictEqual(refusal.msg.error.code, -32001);

  await env.standin.user.save(next);
  assert.deepStrictEqual((await second).content.map((c) => c.text), ["FILE_SAVED", "second proposal\n"]);
});

test("closing the tab of a replaced proposal rejects only the replacement it shows", async (t) => {
  const env = await start(t);
  const first = openDiff(env, TAB, PROPOSAL);
  const editor = await proposalEditor(env, "main.go");
  const second = openDiff(env, TAB, "second proposal\n");
  await waitFor(() => editor.document.text === "second proposal\n", "the proposal to be replaced");
  await first;
  env.standin.user.close(editor);
  assert.deepStrictEqual((await second).content.map((c) => c.text), ["DIFF_REJECTED", TAB]);
  const shown = env.standin.wire.filter((w) => w.msg.method === "showDiff").map((w) => w.msg.params.proposal);
  const rejects = env.standin.wire.filter((w) => w.from === "editor" && w.msg.method === "diffRejected");
  assert.deepStrictEqual(rejects.map((w) => w.msg.params.proposal), [shown[1]]);
});
