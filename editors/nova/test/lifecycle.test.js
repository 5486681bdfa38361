// The extension starts the real bridge as a Nova Process, and the lock file
// it leaves is one the Claude CLI accepts.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { setup, readLock, lockFiles, waitFor, changedRuleBinary } = require("./support/harness.js");
const { ClaudeClient } = require("./support/claude.js");
const { binaryName } = require("../ClaudeIDEBridge.novaextension/Scripts/session.js");

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("auto-start writes a lock for Nova with the workspace folder and a live pid", async (t) => {
  const env = await setup(t);
  const { port, lock } = await readLock(env.configDir);
  // Brief: ideName "Nova", the workspace path as the folder.
  assert.strictEqual(lock.ideName, "Nova");
  // facts: "write real, absolute, symlink-resolved paths".
  assert.deepStrictEqual(lock.workspaceFolders, [env.workspace]);
  assert.strictEqual(lock.transport, "ws");
  assert.match(lock.authToken, /^[0-9a-f]{32}$/);
  // facts: "the lock's pid must be a live process for as long as the server runs".
  const [proc] = Array.from(env.standin.processes);
  assert.strictEqual(lock.pid, proc.pid);
  assert.ok(alive(lock.pid));

  const claude = await ClaudeClient.connect(port, lock.authToken);
  env.clients.push(claude);
  const res = await claude.callTool("getWorkspaceFolders");
  const folders = JSON.parse(res.content[0].text);
  assert.strictEqual(folders.folders[0].path, env.workspace);
});

test("Stop removes the lock and ends the sidecar; Start brings it back", async (t) => {
  const env = await setup(t);
  const first = await readLock(env.configDir);
  await env.standin.run("claude-ide-bridge.stop");
  // docs/editor-protocol.md Lifecycle: SIGTERM "removes its lock file and exits".
  assert.deepStrictEqual(lockFiles(env.configDir), []);
  assert.strictEqual(env.standin.processes.size, 0);
  assert.ok(!alive(first.lock.pid));

  await env.standin.run("claude-ide-bridge.start");
  const second = await readLock(env.configDir);
  assert.strictEqual(second.lock.ideName, "Nova");
  assert.ok(alive(second.lock.pid));
});

test("Stop while the bridge is still starting stops it; Start then starts a new one", async (t) => {
  const env = await setup(t);
  // setup does not wait for activate's start: Stop comes while it is under way.
  await env.standin.run("claude-ide-bridge.stop");
  assert.deepStrictEqual(lockFiles(env.configDir), []);
  assert.strictEqual(env.standin.processes.size, 0);

  await env.standin.run("claude-ide-bridge.start");
  const { lock } = await readLock(env.configDir);
  assert.ok(alive(lock.pid));
});

test("the autoStart setting off leaves the bridge stopped until Start", async (t) => {
  const env = await setup(t, { config: { "claude-ide-bridge.autoStart": false } });
  // activate() returned without starting anything: no process was spawned.
  assert.strictEqual(env.standin.processes.size, 0);
  await env.standin.run("claude-ide-bridge.start");
  await readLock(env.configDir);
});

test("the workspace setting overrides the global one", async (t) => {
  const env = await setup(t, {
    config: { "claude-ide-bridge.autoStart": true },
    workspaceConfig: { "claude-ide-bridge.workspaceAutoStart": "off" },
  });
  assert.strictEqual(env.standin.processes.size, 0);
});

test("deactivate stops the bridge and removes the lock", async (t) => {
  const env = await setup(t);
  await readLock(env.configDir);
  await env.ext.deactivate();
  assert.deepStrictEqual(lockFiles(env.configDir), []);
  await waitFor(() => env.standin.processes.size === 0, "the sidecar to exit");
});

test("Copy Terminal Command puts the env prefix and claude on the clipboard", async (t) => {
  const env = await setup(t);
  const { port } = await readLock(env.configDir);
  await env.standin.run("claude-ide-bridge.copyTerminalCommand");
  const line = env.standin.clipboard;
  // Design note: "put the right env prefix on the clipboard for shells that do not inherit it".
  assert.match(line, new RegExp(`(^| )CLAUDE_CODE_SSE_PORT=${port}( |$)`));
  assert.match(line, /(^| )ENABLE_IDE_INTEGRATION=true( |$)/);
  // facts: set no_proxy/NO_PROXY to include 127.0.0.1,localhost,::1.
  assert.match(line, /(^| )no_proxy=[^ ]*127\.0\.0\.1/);
  // The code tools: --mcp-config with the bridge's config file beside its lock (docs/model-tools.md).
  // Issue 26: --permission-mode default, as no Claude settings choose a mode (a fresh config's
  // auto mode never calls openDiff).
  // And the bridge's hooks (--settings): Claude's state and each turn's end (docs/review.md).
  const dir = path.join(env.configDir, "ide");
  assert.ok(line.endsWith(` ${env.claude} --permission-mode default --settings ${path.join(dir, `${port}.settings.json`)} --mcp-config ${path.join(dir, `${port}.mcp.json`)}`), line);
});

test("Copy Terminal Command leaves a mode the Claude settings choose, and says it skips diffs", async (t) => {
  const env = await setup(t);
  await readLock(env.configDir);
  const settings = path.join(env.configDir, "settings.json");
  fs.writeFileSync(settings, JSON.stringify({ permissions: { defaultMode: "acceptEdits" } }));
  await env.standin.run("claude-ide-bridge.copyTerminalCommand");
  assert.ok(!env.standin.clipboard.includes("--permission-mode"), env.standin.clipboard);
  const note = env.standin.notifications.find((n) => n.title === "Terminal command copied");
  assert.ok(note && note.body.includes(`permission mode acceptEdits (set by ${settings}): Claude writes its edits without showing them as diffs in the editor`), JSON.stringify(note));
});

test("Copy Terminal Command is the bridge's claudeCommand: a bridge with the rule changed gets its line copied", async (t) => {
  const env = await setup(t, { config: { "claude-ide-bridge.binaryPath": changedRuleBinary() } });
  const { port } = await readLock(env.configDir);
  await env.standin.run("claude-ide-bridge.copyTerminalCommand");
  const dir = path.join(env.configDir, "ide");
  // test/testbin/rule.go: its environment keeps only the port, with its own no_proxy, and
  // --changed-rule comes before the user's arguments (none here).
  assert.strictEqual(
    env.standin.clipboard,
    `CLAUDE_CODE_SSE_PORT=${port} NO_PROXY=changed.example no_proxy=changed.example ${env.claude} --permission-mode default ` +
      `--settings ${path.join(dir, `${port}.settings.json`)} --mcp-config ${path.join(dir, `${port}.mcp.json`)} --changed-rule`
  );
  const note = env.standin.notifications.find((n) => n.title === "Terminal command copied");
  assert.ok(note && note.body.includes("the changed rule's own notice"), JSON.stringify(note));
});

test("binaryName picks the bundled binary for the Mac's architecture", () => {
  assert.strictEqual(binaryName("arm64\n"), "claude-ide-bridge-darwin-arm64");
  assert.strictEqual(binaryName("x86_64"), "claude-ide-bridge-darwin-amd64");
  assert.strictEqual(binaryName("ppc"), null);
});
