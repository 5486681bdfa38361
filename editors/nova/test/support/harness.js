// Test harness: builds the real bridge, gives each test private directories
// and a fresh stand-in Nova, and loads the extension's scripts into it.

"use strict";

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const standinNova = require("./nova.js");

const repoRoot = path.resolve(__dirname, "../../../..");
const scriptsDir = path.resolve(__dirname, "../../ClaudeIDEBridge.novaextension/Scripts");

let built = null;

/** bridgeBinary builds cmd/claude-ide-bridge for this machine once per test process. */
function bridgeBinary() {
  if (built) return built;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nova-bridge-bin-"));
  const out = path.join(dir, "claude-ide-bridge");
  execFileSync("go", ["build", "-o", out, "./cmd/claude-ide-bridge"], { cwd: repoRoot, stdio: "inherit", timeout: 300000 });
  process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  built = out;
  return out;
}

let changed = null;

/** changedRuleBinary builds the bridge with its claudeCommand rule changed (test/testbin/rule.go), once. */
function changedRuleBinary() {
  if (changed) return changed;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nova-bridge-rule-"));
  const out = path.join(dir, "claude-ide-bridge");
  execFileSync("go", ["run", "./test/testbin/changedrule", out], { cwd: repoRoot, stdio: "inherit", timeout: 300000 });
  process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  changed = out;
  return out;
}

/** waitFor polls cond until it returns a truthy value, at most timeoutMs. */
async function waitFor(cond, what, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function freshExtension() {
  for (const key of Object.keys(require.cache)) {
    if (key.startsWith(scriptsDir + path.sep)) delete require.cache[key];
  }
  return require(path.join(scriptsDir, "main.js"));
}

/**
 * setup prepares one test: a workspace folder (symlink-resolved), a private
 * CLAUDE_CONFIG_DIR, Nova storage, the stand-in and the extension, activated.
 * Files in opts.files are written into the workspace first; opts.open lists
 * those already open in Nova when the extension activates; opts.trusted trusts
 * the workspace in the bridge's store first (env.trust() does it later).
 * Everything is torn down after the test.
 */
async function setup(t, opts = {}) {
  // In the home folder, not os.tmpdir(): the bridge starts no language server, and `trust`
  // refuses, under a folder other users can write such as a sticky /tmp (docs/security.md).
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.homedir(), ".cib-nova-")));
  const workspace = path.join(root, "project");
  const configDir = path.join(root, "claude-config");
  fs.mkdirSync(workspace);
  fs.mkdirSync(configDir);
  // TMPDIR: the Gemini CLI's discovery files (docs/gemini.md) are the test's.
  const tmp = path.join(root, "tmp");
  fs.mkdirSync(tmp);
  for (const [name, text] of Object.entries(opts.files || {})) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  // Nova reads project settings from the folder's .nova/Configuration.json (a
  // file repositories commit): a test may write one instead of workspaceConfig.
  let workspaceConfig = opts.workspaceConfig;
  const committed = path.join(workspace, ".nova", "Configuration.json");
  if (fs.existsSync(committed)) workspaceConfig = Object.assign(JSON.parse(fs.readFileSync(committed, "utf8")), workspaceConfig);
  // XDG_CONFIG_HOME: the bridge's trust store is the test's, empty unless opts.trusted.
  // A claude on the bridge's PATH: it looks the program up (outside the workspace).
  const claude = path.join(root, "bin", "claude");
  fs.mkdirSync(path.dirname(claude));
  fs.writeFileSync(claude, "#!/bin/sh\n", { mode: 0o755 });
  const processEnv = Object.assign({}, process.env, { CLAUDE_CONFIG_DIR: configDir, HOME: root, XDG_CONFIG_HOME: path.join(root, "xdg"), TMPDIR: tmp, PATH: `${path.dirname(claude)}${path.delimiter}${process.env.PATH}` });
  const trust = () => execFileSync(bridgeBinary(), ["trust", workspace], { env: processEnv, stdio: "ignore" });
  if (opts.trusted) trust();
  const standin = standinNova.install({
    workspacePath: workspace,
    storagePath: path.join(root, "storage"),
    extensionPath: path.resolve(scriptsDir, ".."),
    config: Object.assign({ "claude-ide-bridge.binaryPath": bridgeBinary() }, opts.config),
    workspaceConfig,
    processEnv,
  });
  for (const name of opts.open || []) await standin.user.open(path.join(workspace, name));
  // The extension logs the sidecar's stderr to Nova's extension console; keep it
  // with the test instead of the runner's output.
  const log = [];
  const consoleLog = console.log;
  console.log = (...args) => log.push(args.join(" "));
  const ext = freshExtension();
  ext.activate();

  const env = { root, workspace, configDir, tmp, claude, standin, ext, log, trust, processEnv, file: (name) => path.join(workspace, name), clients: [] };
  t.after(async () => {
    for (const c of env.clients) c.close();
    await ext.deactivate();
    for (const p of Array.from(standin.processes)) p.kill();
    await waitFor(() => standin.processes.size === 0, "processes to exit");
    standinNova.uninstall();
    console.log = consoleLog;
    fs.rmSync(root, { recursive: true, force: true });
  });
  return env;
}

/** lockFiles lists the lock files in configDir/ide. */
function lockFiles(configDir) {
  const dir = path.join(configDir, "ide");
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((n) => n.endsWith(".lock")).map((n) => path.join(dir, n));
}

/** readLock waits for exactly one lock file and returns {port, lock, path}. */
async function readLock(configDir) {
  const files = await waitFor(() => {
    const f = lockFiles(configDir);
    return f.length === 1 ? f : null;
  }, "one lock file");
  const lock = JSON.parse(fs.readFileSync(files[0], "utf8"));
  return { port: Number(path.basename(files[0], ".lock")), lock, path: files[0] };
}

module.exports = { setup, waitFor, readLock, lockFiles, bridgeBinary, changedRuleBinary, repoRoot };
