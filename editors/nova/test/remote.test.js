// Remote mode (issue 19): the bridge runs "on another machine", started through
// the Remote command setting, and translates paths with the Path map setting.
// The other machine is a mount namespace (unshare, as root) where REMOTE is a
// bind mount of the workspace; outside it REMOTE is an empty folder.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { setup, readLock, waitFor, bridgeBinary } = require("./support/harness.js");
const { ClaudeClient } = require("./support/claude.js");
const remote = require("../ClaudeIDEBridge.novaextension/Scripts/remote.js");

function namespaces() {
  if (process.getuid() !== 0) return "not root";
  try {
    execFileSync("unshare", ["-m", "true"]);
    return null;
  } catch (err) {
    return `unshare -m: ${err.message}`;
  }
}

test("remote commands: ssh gets one shell string, others sh -c; the terminal gets a tty", () => {
  const rc = { cmd: ["ssh", "build-box"], pathMap: ["/Users/me/app=/srv/my app"] };
  assert.deepStrictEqual(remote.bridgeCommand(rc), {
    command: "/usr/bin/env",
    args: ["ssh", "build-box", "exec 'claude-ide-bridge' 'serve' '--stdio' '--path-map' '/Users/me/app=/srv/my app'"],
  });
  assert.strictEqual(remote.toRemote(rc, "/Users/me/app/sub"), "/srv/my app/sub");
  assert.strictEqual(remote.toRemote(rc, "/Users/me/application"), null);
  assert.strictEqual(
    remote.terminalCommand(rc, { CLAUDE_CODE_SSE_PORT: "4242" }, "/srv/my app", ["claude", "--resume"]),
    `'ssh' '-t' 'build-box' 'cd '\\''/srv/my app'\\'' && exec env '\\''CLAUDE_CODE_SSE_PORT=4242'\\'' '\\''claude'\\'' '\\''--resume'\\'''`
  );
  const docker = { cmd: ["/usr/bin/docker", "exec", "-i", "box"], pathMap: [] };
  assert.deepStrictEqual(remote.bridgeCommand(docker).args.slice(0, 4), ["exec", "-i", "box", "sh"]);
});

test("through a remote command: REMOTE folders and the bridge's pid in the lock, paths translated both ways", async (t) => {
  const why = namespaces();
  if (why) {
    if (process.env.CI === "true") assert.fail(`remote-mode test cannot run in CI: ${why}`);
    t.skip(`remote-mode test NOT running (${why}): it needs root for a mount namespace`);
    return;
  }
  // The remote side finds claude-ide-bridge on its PATH.
  const oldPath = process.env.PATH;
  process.env.PATH = `${path.dirname(bridgeBinary())}:${oldPath}`;
  t.after(() => {
    process.env.PATH = oldPath;
  });
  const remoteRoot = fs.realpathSync(fs.mkdtempSync("/tmp/nova-remote-"));
  const remoteDir = path.join(remoteRoot, "srv-app");
  fs.mkdirSync(remoteDir);
  t.after(() => fs.rmSync(remoteRoot, { recursive: true, force: true }));
  const launcher = (ws) => ["unshare", "-m", "sh", "-c", 'mount --bind "$1" "$2" && shift 2 && exec "$@"', "launcher", ws, remoteDir];
  // The workspace path is known only after setup: start stopped, then set.
  const env = await setup(t, { files: { "a.txt": "one\ntwo\n" }, config: { "claude-ide-bridge.autoStart": false } });
  env.standin.nova.workspace.config.set("claude-ide-bridge.remoteCommand", launcher(env.workspace));
  env.standin.nova.workspace.config.set("claude-ide-bridge.pathMap", [`${env.workspace}=${remoteDir}`]);
  env.trust(); // the project's remote command runs only in a trusted folder
  await env.standin.run("claude-ide-bridge.start");
  const { port, lock } = await readLock(env.configDir);
  assert.deepStrictEqual(lock.workspaceFolders, [remoteDir]);
  const [proc] = Array.from(env.standin.processes);
  assert.strictEqual(lock.pid, proc.pid, "the lock's pid is the bridge's own");

  const claude = await ClaudeClient.connect(port, lock.authToken);
  env.clients.push(claude);
  const editor = await env.standin.user.open(env.file("a.txt"));
  await env.standin.run("claude-ide-bridge.addFile", editor);
  const m = await claude.notification("at_mentioned");
  assert.deepStrictEqual(m, { filePath: path.join(remoteDir, "a.txt") }, "Claude sees the REMOTE path");

  const res = await claude.callTool("openFile", { filePath: path.join(remoteDir, "a.txt") });
  assert.ok(!res.isError, res.content[0].text);
  assert.strictEqual(env.standin.nova.workspace.activeTextEditor.document.path, env.file("a.txt"), "Nova opens the LOCAL path");

  await env.standin.run("claude-ide-bridge.copyTerminalCommand");
  assert.match(env.standin.clipboard, new RegExp(`cd '\\\\''${remoteDir}'\\\\'' && exec env .*CLAUDE_CODE_SSE_PORT=${port}.*claude`));
  assert.ok(!env.standin.clipboard.includes(env.claude), "the remote's claude, not looked up here");

  // The remote side ends: Nova says so, with the reason escaped.
  process.kill(lock.pid, "SIGTERM");
  await waitFor(() => env.standin.errors.length > 0, "Nova to report the end");
  assert.match(env.standin.errors[0], /remote Claude bridge .* ended with status/);
  assert.match(env.standin.errors[0], /nothing was written/);
  // Start brings it back.
  await env.standin.run("claude-ide-bridge.start");
  const again = await readLock(env.configDir);
  assert.deepStrictEqual(again.lock.workspaceFolders, [remoteDir]);
});
