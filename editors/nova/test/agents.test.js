// The other agents in Nova (issue 38 item 4): a Gemini CLI proposal is named Gemini's, saving it
// sends the user's text to the CLI, an answer in the CLI's terminal gets the proposal tab's text
// (diffText); an unknown agent is "An agent"; Copy Gemini CLI / Qwen Code Command copy the
// bridge's line, and its refusal is shown escaped. Run against the stand-in of Nova's API
// (test/support/nova.js: Nova itself cannot run here) with the real bridge and a client that
// speaks the Gemini CLI's companion protocol (test/support/gemini.js).
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { setup, readLock, waitFor } = require("./support/harness.js");
const { GeminiClient } = require("./support/gemini.js");

const ORIGINAL = "package main\n\nfunc main() {}\n";
const PROPOSAL = "package main\n\nfunc main() { println(1) }\n";

async function start(t) {
  const env = await setup(t, { files: { "main.go": ORIGINAL } });
  await readLock(env.configDir);
  env.gemini = await GeminiClient.connect(env.tmp);
  t.after(() => env.gemini.close());
  env.storage = path.join(env.root, "storage");
  return env;
}

/** proposal has Gemini propose PROPOSAL for main.go; resolves with the proposal's editor in Nova. */
async function proposal(env) {
  const r = await env.gemini.tool("openDiff", { filePath: env.file("main.go"), newContent: PROPOSAL });
  assert.deepStrictEqual(r.content, []);
  return waitFor(
    () => env.standin.nova.workspace.textEditors.find((e) => e.document.path.startsWith(env.storage + path.sep)),
    "the proposal to open"
  );
}

test("a Gemini proposal is named Gemini's; saving it sends the user's text to the CLI", async (t) => {
  const env = await start(t);
  const editor = await proposal(env);
  assert.strictEqual(editor.document.text, PROPOSAL);
  assert.ok(env.standin.notifications.some((n) => n.title === "Gemini proposes a change to main.go"), JSON.stringify(env.standin.notifications.map((n) => n.title)));
  // clientConnected names the agent: never "Claude connected" for Gemini.
  const titles = env.standin.notifications.map((n) => n.title);
  assert.ok(titles.includes("Gemini connected") && !titles.includes("Claude connected"), JSON.stringify(titles));

  const edited = PROPOSAL.replace("println(1)", "println(2) // 本");
  await env.standin.user.type(editor, edited);
  await env.standin.user.save(editor);
  const accepted = await env.gemini.notification("ide/diffAccepted");
  assert.deepStrictEqual(accepted, { filePath: env.file("main.go"), content: edited });
  // The CLI writes the file, never Nova.
  assert.strictEqual(fs.readFileSync(env.file("main.go"), "utf8"), ORIGINAL);
});

test("answered in Gemini's terminal: the CLI gets the proposal tab's text with the user's edits", async (t) => {
  const env = await start(t);
  const init = env.standin.wire.find((w) => w.msg.method === "initialize");
  assert.strictEqual(init.msg.params.capabilities.diffText, true);
  const editor = await proposal(env);
  const edited = PROPOSAL + "// kept\n";
  await env.standin.user.type(editor, edited);

  // The CLI's terminal answered first: it closes the diff and writes what closeDiff gives.
  const r = await env.gemini.tool("closeDiff", { filePath: env.file("main.go"), suppressNotification: true });
  assert.deepStrictEqual(JSON.parse(r.content[0].text), { content: edited });
  await waitFor(() => !fs.existsSync(editor.document.path), "the staged proposal to be removed");
  assert.ok(env.standin.notifications.some((n) => n.title === "Gemini no longer waits for the proposal to main.go."));
  assert.strictEqual(env.standin.wire.filter((w) => w.msg.method === "diffAccepted" || w.msg.method === "diffRejected").length, 0);
  assert.strictEqual(fs.readFileSync(env.file("main.go"), "utf8"), ORIGINAL);
});

test("only known agents are named: anything else is An agent, in proposals and permission questions", async (t) => {
  const env = await setup(t, { files: { "a.txt": "old\n" } });
  const { Proposals } = require("../ClaudeIDEBridge.novaextension/Scripts/proposals.js");
  const { Permissions } = require("../ClaudeIDEBridge.novaextension/Scripts/permissions.js");
  const titles = [];
  const tell = (title) => titles.push(title);
  // Staged in the test's folder, which the harness removes.
  const proposals = new Proposals({ request: async () => ({}), tell, dir: path.join(env.root, "staged") });
  const show = (tabName, agent) => proposals.show({ tabName, filePath: env.file("a.txt"), newContents: `${tabName}\n`, proposal: 1, agent });
  await show("q", "qwen");
  await show("c", undefined);
  await show("esc", "\u001b]0;pwned\u0007");
  await show("proto", "constructor");
  assert.deepStrictEqual(titles, [
    "Qwen proposes a change to a.txt",
    "Claude proposes a change to a.txt",
    "An agent proposes a change to a.txt",
    "An agent proposes a change to a.txt",
  ]);

  // diffText: the tab's text now, the user's edits included; null for no open proposal.
  const q = env.standin.nova.workspace.textEditors.find((e) => e.document.text === "q\n");
  await env.standin.user.type(q, "q, edited\n");
  assert.deepStrictEqual(proposals.text({ tabName: "q" }), { text: "q, edited\n" });
  assert.deepStrictEqual(proposals.text({ tabName: "none" }), { text: null });
  proposals.close({ tabName: "q" });
  assert.deepStrictEqual(proposals.text({ tabName: "q" }), { text: null });

  const permissions = new Permissions({ request: async () => ({}), tell });
  permissions.ask({ id: 1, agent: "gemini", tool: "Bash", input: { command: "ls" } });
  permissions.ask({ id: 2, agent: "\u202eevil", tool: "Bash", input: { command: "ls" } });
  const asked = env.standin.notifications.filter((n) => / asks to use /.test(n.title));
  assert.deepStrictEqual(asked.map((n) => n.title), ["Gemini asks to use Bash", "An agent asks to use Bash"]);
  assert.match(asked[0].body, /Gemini's terminal asks too/);
  permissions.dispose();
  proposals.dispose();
});

test("Copy Gemini CLI Command copies the bridge's line; a refusal is shown escaped", async (t) => {
  const env = await start(t);
  // The agent's program, on the bridge's PATH outside the workspace (the harness's bin).
  const gemini = path.join(path.dirname(env.claude), "gemini");
  fs.writeFileSync(gemini, "#!/bin/sh\n", { mode: 0o755 });
  await env.standin.run("claude-ide-bridge.copyGeminiCommand");
  assert.deepStrictEqual(env.standin.errors, []);
  assert.strictEqual(env.standin.clipboard, `GEMINI_CLI_IDE_SERVER_PORT=${env.gemini.port} ${gemini}`);
  assert.ok(env.standin.notifications.some((n) => n.title === "Gemini command copied" && n.body.startsWith(env.standin.clipboard)));

  // No ~/.qwen nor $QWEN_HOME here: the bridge does not serve Qwen Code and says why.
  await env.standin.run("claude-ide-bridge.copyQwenCommand");
  assert.strictEqual(env.standin.errors.length, 1);
  assert.match(env.standin.errors[0], /this bridge does not serve Qwen Code/);

  // A gemini on the PATH that resolves into the workspace is refused, and the bridge's
  // sentence names the workspace's folder: its control characters are shown escaped.
  const inside = path.join(env.workspace, "tools\u001b]0;pwned\u0007");
  fs.mkdirSync(inside);
  fs.writeFileSync(path.join(inside, "gemini"), "#!/bin/sh\n", { mode: 0o755 });
  fs.rmSync(gemini);
  fs.symlinkSync(path.join(inside, "gemini"), gemini);
  await env.standin.run("claude-ide-bridge.copyGeminiCommand");
  assert.strictEqual(env.standin.errors.length, 2);
  assert.match(env.standin.errors[1], /tools\\u001b\]0;pwned\\u0007/);
  assert.doesNotMatch(env.standin.errors[1], /[\u001b\u0007]/);
});
