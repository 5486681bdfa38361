// Review Claude's Last Turn and Claude's state, through the real bridge: the Claude side makes
// the CLI's calls in auto mode (facts: closeAllDiffTabs at each prompt, getDiagnostics {uri}
// right before it writes an Edit) and writes the file itself; the hook is the real
// `claude-ide-bridge hook` command.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { setup, readLock, waitFor, bridgeBinary } = require("./support/harness.js");
const { ClaudeClient } = require("./support/claude.js");

test("a turn's changed files are listed and each opens as a comparison", async (t) => {
  const env = await setup(t, { files: { "a.txt": "one\ntwo\nthree\n" } });
  const { port, lock } = await readLock(env.configDir);
  const claude = await ClaudeClient.connect(port, lock.authToken);
  env.clients.push(claude);
  await new Promise((r) => setTimeout(r, 100)); // not an assertion: the file predates the prompt
  await claude.callTool("closeAllDiffTabs", {});
  await claude.callTool("getDiagnostics", { uri: "file://" + env.file("a.txt") });
  fs.writeFileSync(env.file("a.txt"), "one\nTWO\nthree\n");
  await claude.callTool("closeAllDiffTabs", {}); // the next prompt ends the turn
  await waitFor(() => env.standin.notifications.find((n) => n.title === "Claude changed 1 file(s): +1 -1"), "the turn's summary");

  env.standin.choiceAnswer = 0;
  await env.standin.run("claude-ide-bridge.reviewTurn");
  const palette = env.standin.palettes[0];
  assert.deepStrictEqual(palette.choices, ["modified a.txt +1 -1"]);
  assert.match(palette.placeholder, /^Turn 1: Claude changed 1 file\(s\): \+1 -1$/);
  const diff = await waitFor(() => env.standin.nova.workspace.textEditors.find((e) => e.document.path.endsWith("a.txt.diff")), "the diff to open");
  assert.strictEqual(diff.document.getTextInRange(new Range(0, diff.document.length)),
    `--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n`);
  assert.strictEqual(env.standin.nova.workspace.activeTextEditor.document.path, env.file("a.txt"), "then the file itself");
});

test("a session waiting for a permission is told; Show Status lists its state", async (t) => {
  const env = await setup(t);
  const { port } = await readLock(env.configDir);
  const hook = (ev) =>
    execFileSync(bridgeBinary(), ["hook", "--port", String(port)], { env: env.standin.processEnv, input: JSON.stringify(ev) });
  hook({ hook_event_name: "UserPromptSubmit", session_id: "abcdef123456" });
  hook({ hook_event_name: "PermissionRequest", session_id: "abcdef123456", tool_name: "Bash" });
  const note = await waitFor(() => env.standin.notifications.find((n) => n.title === "Claude is waiting for you"), "the waiting notice");
  assert.strictEqual(note.body, "permission for Bash");
  await env.standin.run("claude-ide-bridge.showStatus");
  const shown = env.standin.infos[env.standin.infos.length - 1];
  assert.match(shown, /Claude abcdef12: waiting \(permission for Bash\)/);
  // Who is connected is the bridge's clientsLine (ide.Agents.Line): a hook is no client.
  assert.match(shown, new RegExp(`^Claude bridge on port ${port}, no clients\\.`));
});

test("a file the user saves in Nova during Claude's turn is not Claude's", async (t) => {
  const env = await setup(t, { files: { "mine.txt": "mine\n", "other.txt": "other\n" } });
  const { port, lock } = await readLock(env.configDir);
  const claude = await ClaudeClient.connect(port, lock.authToken);
  env.clients.push(claude);
  const mine = await env.standin.user.open(env.file("mine.txt"));
  await new Promise((r) => setTimeout(r, 100)); // not an assertion: the files predate the prompt
  await claude.callTool("closeAllDiffTabs", {});
  await mine.edit((e) => e.replace(new Range(0, mine.document.length), "edited in Nova\n"));
  await mine.save();
  fs.writeFileSync(env.file("other.txt"), "changed by a Bash command\n");
  // Ask the bridge as the review command does.
  const review = () =>
    JSON.parse(execFileSync(bridgeBinary(), ["review", "--json", "--turn", "1"], { cwd: env.workspace, env: env.standin.processEnv }).toString());
  await waitFor(() => review().report.files.some((f) => f.path === env.file("other.txt")), "other.txt in the turn", 10000);
  await new Promise((r) => setTimeout(r, 300)); // not an assertion: lets a wrong record of mine.txt arrive
  assert.deepStrictEqual(review().report.files.map((f) => path.basename(f.path)), ["other.txt"]);
});
