// Workspace trust in Nova (issue 25): a project's committed .nova/Configuration.json
// is the repository's, not the user's. Its settings that run a command (remote
// command, project language servers, "start with this workspace: Always") are
// ignored until the folder is trusted in the bridge's store; the global settings
// still apply. Run against the stand-in of Nova's API (test/support/nova.js: Nova
// itself cannot run here) with the real bridge binary.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const os = require("node:os");
const { execFileSync } = require("node:child_process");
const { setup, readLock, waitFor, bridgeBinary } = require("./support/harness.js");
const { ClaudeClient } = require("./support/claude.js");

/** hostile writes the committed configuration of a cloned repository and the programs it names. */
function hostile() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nova-hostile-")));
  const marker = (name) => path.join(dir, "ran-" + name);
  const script = (name) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, `#!/bin/sh\necho ran > '${marker(name)}'\nexit 1\n`, { mode: 0o755 });
    return p;
  };
  const config = {
    "claude-ide-bridge.remoteCommand": [script("remote")],
    "claude-ide-bridge.workspaceLanguageServers": [".go=" + script("server")],
    "claude-ide-bridge.workspaceAutoStart": "on",
  };
  return { dir, marker, files: { ".nova/Configuration.json": JSON.stringify(config), "main.go": "package main\n" } };
}

function ran(p) {
  return fs.existsSync(p);
}

test("a committed .nova/Configuration.json runs nothing in an untrusted folder", async (t) => {
  const h = hostile();
  t.after(() => fs.rmSync(h.dir, { recursive: true, force: true }));
  // Auto-start off globally: the project's "Always" must not start the bridge either.
  const env = await setup(t, { files: h.files, config: { "claude-ide-bridge.autoStart": false } });
  await waitFor(() => env.standin.infos.length > 0 || ran(h.marker("remote")), "the message about ignored settings");
  assert.ok(!ran(h.marker("remote")), "the project's remote command ran");
  assert.match(env.standin.infos[0], /remoteCommand, workspaceLanguageServers, workspaceAutoStart\) are ignored/);
  assert.match(env.standin.infos[0], /not a trusted folder/);
  await waitFor(() => env.standin.processes.size === 0, "the trust check to end");
  assert.ok(!ran(h.marker("remote")), "the project's remote command ran");

  // Start by hand: the bridge runs here (no remote command) and getDiagnostics is not
  // answered by the project's server (Nova's own answer: unsupported).
  await env.standin.run("claude-ide-bridge.start");
  const { port, lock } = await readLock(env.configDir);
  assert.deepStrictEqual(lock.workspaceFolders, [env.workspace], "the bridge runs on this Mac");
  const claude = await ClaudeClient.connect(port, lock.authToken);
  env.clients.push(claude);
  const res = await claude.callTool("getDiagnostics", { uri: "file://" + env.file("main.go") });
  assert.strictEqual(res.isError, true, JSON.stringify(res));
  assert.ok(!ran(h.marker("remote")), "the project's remote command ran");
  assert.ok(!ran(h.marker("server")), "the project's language server ran");
});

test("Trust This Workspace asks, records the folder in the bridge's store, and the project's settings then apply", async (t) => {
  const h = hostile();
  t.after(() => fs.rmSync(h.dir, { recursive: true, force: true }));
  const env = await setup(t, { files: h.files, config: { "claude-ide-bridge.autoStart": false } });
  await waitFor(() => env.standin.infos.length > 0, "the message about ignored settings");
  const check = () => {
    try {
      execFileSync(bridgeBinary(), ["trust", "--check", env.workspace], { env: env.processEnv, stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  };
  // Dismissed: nothing recorded.
  env.standin.panelAnswer = null;
  assert.strictEqual(await env.standin.run("claude-ide-bridge.trustWorkspace"), false);
  assert.match(env.standin.panels[0].message, /can run code it contains/);
  assert.deepStrictEqual(env.standin.panels[0].buttons, ["Trust", "Cancel"]);
  assert.ok(!check(), "dismissing the panel trusted the folder");
  // Trust.
  env.standin.panelAnswer = 0;
  assert.strictEqual(await env.standin.run("claude-ide-bridge.trustWorkspace"), true);
  assert.ok(check(), "the folder is not in the bridge's trust store");
  // Now the project's remote command is the user's choice: Start runs it.
  await env.standin.run("claude-ide-bridge.start").catch(() => {});
  await waitFor(() => ran(h.marker("remote")), "the trusted project's remote command to run");
});

test("Trust This Workspace under a folder other users can write shows the bridge's refusal and records nothing", async (t) => {
  const env = await setup(t, { config: { "claude-ide-bridge.autoStart": false } });
  // The project's parent made shared as /tmp is (issue 35 item 4): another user's
  // node_modules or go.work there would be read by the project's language servers.
  fs.chmodSync(env.root, 0o1777);
  env.standin.panelAnswer = 0;
  await env.standin.run("claude-ide-bridge.trustWorkspace");
  const shown = env.standin.errors.join("\n");
  assert.match(shown, new RegExp(`${env.root.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} can be written by other users \\(mode 1777`));
  assert.match(shown, /claude-ide-bridge trust --shared /);
  let trusted = true;
  try {
    execFileSync(bridgeBinary(), ["trust", "--check", env.workspace], { env: env.processEnv, stdio: "ignore" });
  } catch {
    trusted = false;
  }
  assert.ok(!trusted, "the folder was trusted");
});
