// Session runs one `claude-ide-bridge serve --stdio` sidecar with Nova's
// Process in "jsonrpc" mode and speaks the editor protocol with it.

"use strict";

const { capabilities } = require("./handlers.js");
const permissions = require("./permissions.js");
const { bridgeCommand } = require("./remote.js");

const BINARY = "claude-ide-bridge";
const INITIALIZE_TIMEOUT_MS = 10000;
const REQUEST_TIMEOUT_MS = 15000;
const STOP_TIMEOUT_MS = 3000;

/** binaryName maps `uname -m` to the bundled binary for that Mac, or null. */
function binaryName(machine) {
  switch ((machine || "").trim()) {
    case "arm64":
    case "aarch64":
      return `${BINARY}-darwin-arm64`;
    case "x86_64":
    case "amd64":
      return `${BINARY}-darwin-amd64`;
    default:
      return null;
  }
}

/** run starts command and resolves with its stdout lines once it exits (bounded). */
/**
 * languageServerArgs turns the "Language servers" setting (the project's, read
 * from ws, when it lists any, else the global one) into `--lsp VALUE` flags: each entry is
 * EXT=COMMAND (".go=gopls", ".py=pyright-langserver --stdio"), "auto" (the
 * common servers on the bridge's PATH) or "none".
 * @returns {string[]}
 */
function languageServerArgs(ws) {
  const local = ws.get("claude-ide-bridge.workspaceLanguageServers", "array");
  const list = local && local.length ? local : nova.config.get("claude-ide-bridge.languageServers", "array") || [];
  const args = [];
  for (const entry of list) {
    const value = String(entry).trim();
    if (value) args.push("--lsp", value);
  }
  return args;
}

function run(command, args, timeoutMs) {
  return new Promise((resolve, reject) => {
    const lines = [];
    const proc = new Process(command, { args, stdio: ["ignore", "pipe", "ignore"] });
    proc.onStdout((line) => lines.push(line));
    const timer = setTimeout(() => {
      proc.kill();
      reject(new Error(`${command} did not finish`));
    }, timeoutMs);
    proc.onDidExit((status) => {
      clearTimeout(timer);
      if (status === 0) resolve(lines);
      else reject(new Error(`${command} exited with status ${status}`));
    });
    proc.start();
  });
}

/**
 * locateBinary returns the bridge to run: the binaryPath setting if set,
 * else the bundled binary for this Mac's architecture.
 */
async function locateBinary() {
  const custom = nova.config.get("claude-ide-bridge.binaryPath", "string");
  if (custom) return nova.path.expanduser(custom);
  // Nova exposes no CPU architecture; uname reports the one Nova runs as.
  const machine = (await run("/usr/bin/uname", ["-m"], 5000)).join("").trim();
  const name = binaryName(machine);
  if (!name) throw new Error(`no bundled claude-ide-bridge for ${machine || "this Mac"}`);
  const path = nova.path.join(nova.extension.path, "bin", name);
  if (!nova.fs.access(path, nova.fs.F_OK)) throw new Error(`${path} is missing; rebuild the extension with build.sh`);
  // Installing a bundle can drop the executable bit.
  if (!nova.fs.access(path, nova.fs.X_OK)) await run("/bin/chmod", ["+x", path], 5000);
  return path;
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

class Session {
  /**
   * handlers: method → handler(params) for the bridge's requests.
   * onNotify(method, params) gets the bridge's notifications.
   * onExit(status, stderrTail) is called once when the sidecar exits.
   */
  constructor({ handlers, onNotify, onExit }) {
    this.handlers = handlers;
    this.onNotify = onNotify || (() => {});
    this.onExit = onExit || (() => {});
    this.proc = null;
    this.info = null;
    this.stderr = [];
    this.exited = null; // Promise resolved with the exit status
  }

  /**
   * start runs binary and initializes it; resolves with the initialize result.
   * ws is the project settings to read (trust.js).
   */
  async start(binary, remote, ws) {
    let args = ["serve", "--stdio"];
    // For bug reports: every WebSocket frame, one JSON line each.
    const trace = nova.config.get("claude-ide-bridge.traceFile", "string");
    if (trace && !remote) args.push("--trace", nova.path.expanduser(trace));
    // Nova's API cannot read the issues other extensions report, so getDiagnostics
    // is answered by language servers the bridge runs itself (serve --lsp); in
    // remote mode they run where the bridge and the files are.
    const lsp = languageServerArgs(ws);
    args.push(...lsp);
    // Remote mode (remote.js): the bridge runs where Claude runs, started
    // through the remote command; it translates paths.
    if (remote) {
      const rc = bridgeCommand(remote, lsp);
      binary = rc.command;
      args = rc.args;
    }
    /** @type {ConstructorParameters<typeof Process>[1]} */
    const options = { args, stdio: "jsonrpc" };
    if (nova.workspace.path) options.cwd = nova.workspace.path;
    const proc = new Process(binary, options);
    this.proc = proc;
    for (const method of Object.keys(this.handlers)) {
      const handler = this.handlers[method];
      proc.onRequest(method, (message) => handler(message.parameters));
    }
    for (const method of ["clientConnected", "clientDisconnected", "claudeState", "turnEnded", "permissionWithdrawn"]) {
      proc.onNotify(method, (message) => this.onNotify(method, message.parameters));
    }
    proc.onStderr((line) => {
      this.stderr.push(line);
      if (this.stderr.length > 20) this.stderr.shift();
      console.log(`[claude-ide-bridge] ${line.replace(/\n$/, "")}`);
    });
    this.exited = new Promise((resolve) => {
      proc.onDidExit((status) => {
        this.proc = null;
        resolve(status);
        this.onExit(status, this.stderr.join("").trim());
      });
    });
    proc.start();

    const folders = nova.workspace.path ? [nova.workspace.path] : [];
    this.info = await withTimeout(
      proc.request("initialize", {
        name: "Nova",
        // No pid: Nova gives an extension no pid of its own, so the lock
        // carries the sidecar's, which lives exactly as long as the server.
        workspaceFolders: folders,
        positionEncoding: "utf-16",
        trackSelection: true,
        capabilities: Object.assign({ askPermission: permissions.capability() }, capabilities),
      }),
      INITIALIZE_TIMEOUT_MS,
      "claude-ide-bridge initialize"
    );
    return this.info;
  }

  get running() {
    return this.proc !== null;
  }

  request(method, params) {
    if (!this.proc) return Promise.reject(new Error("the Claude bridge is not running"));
    return withTimeout(this.proc.request(method, params || {}), REQUEST_TIMEOUT_MS, method);
  }

  notify(method, params) {
    if (this.proc) this.proc.notify(method, params);
  }

  /** stop asks the sidecar to exit (it removes its lock file) and waits, bounded. */
  async stop() {
    const proc = this.proc;
    if (!proc) return;
    proc.terminate();
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(() => resolve("late"), STOP_TIMEOUT_MS);
    });
    const how = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    if (how === "late" && this.proc) proc.kill();
  }
}

module.exports = { Session, locateBinary, binaryName };
