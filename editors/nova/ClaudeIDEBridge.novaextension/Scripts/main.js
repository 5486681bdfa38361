// Claude IDE Bridge for Nova: runs the claude-ide-bridge sidecar so that a
// `claude` started in a terminal sees this workspace as its IDE.

"use strict";

const { Session, locateBinary } = require("./session.js");
const { config: remoteConfig, toRemote, terminalCommand: remoteTerminalCommand } = require("./remote.js");
const { escapeControls, agentTitle } = require("./text.js");
const { Permissions } = require("./permissions.js");
const { makeHandlers } = require("./handlers.js");
const { Proposals, errorText } = require("./proposals.js");
const { Review } = require("./review.js");
const { SelectionTracker } = require("./selection.js");
const { selectionOf } = require("./editors.js");
const trust = require("./trust.js");
const { trustFolder } = trust;

const ID = "claude-ide-bridge";

/** mentionOf turns an editor's selection into atMentioned params (0-based, lineEnd inclusive). */
function mentionOf(editor, wholeFile) {
  const sel = selectionOf(editor);
  if (!sel) return null;
  if (wholeFile || sel.selection.isEmpty) return { filePath: sel.filePath };
  const { start, end } = sel.selection;
  // A selection ending at character 0 does not include that line.
  const lineEnd = end.character === 0 && end.line > start.line ? end.line - 1 : end.line;
  return { filePath: sel.filePath, lineStart: start.line, lineEnd };
}

class ClaudeBridgeExtension {
  constructor() {
    this.session = null;
    this.remote = null; // the remote settings the running session was started with
    this.toldUntrusted = false;
    this.starting = null;
    this.proposals = null;
    this.review = null;
    this.permissions = null;
    this.stopping = false;
    this.clients = 0;
    this.disposables = [];
    this.tracker = new SelectionTracker({
      send: (sel) => this.session && this.session.running && this.session.notify("selectionChanged", sel),
      ignore: (editor) => !!this.proposals && this.proposals.isStaged(editor.document.path),
    });
  }

  activate() {
    const commands = {
      start: () => this.start(true),
      stop: () => this.stop(),
      copyTerminalCommand: () => this.copyTerminalCommand(""),
      copyGeminiCommand: () => this.copyTerminalCommand("gemini"),
      copyQwenCommand: () => this.copyTerminalCommand("qwen"),
      sendSelection: (editor) => this.mention(editor, false),
      addFile: (editor) => this.mention(editor, true),
      closeAllDiffs: () => this.closeAllDiffs(),
      showStatus: () => this.showStatus(),
      trustWorkspace: () => this.trustWorkspace(),
      reviewTurn: () => this.reviewTurn(),
    };
    for (const name of Object.keys(commands)) {
      this.disposables.push(nova.commands.register(`${ID}.${name}`, (arg) => this.guard(commands[name](arg))));
    }
    // Your saves are yours: the bridge leaves them out of Claude's turn (docs/review.md).
    const saves = (editor) => {
      this.disposables.push(
        editor.onDidSave((e) => {
          const path = e.document.path;
          if (path && this.session && this.session.running && !(this.proposals && this.proposals.isStaged(path))) {
            this.session.notify("userWrote", { filePath: path });
          }
        })
      );
    };
    for (const editor of nova.workspace.textEditors) {
      this.tracker.watch(editor);
      saves(editor);
    }
    this.disposables.push(
      nova.workspace.onDidAddTextEditor((editor) => {
        this.tracker.watch(editor);
        saves(editor);
      })
    );
    this.disposables.push(
      nova.workspace.onDidChangePath((path) => {
        if (this.session && this.session.running) {
          this.session.notify("workspaceFoldersChanged", { folders: path ? [path] : [] });
        }
      })
    );
    this.guard(this.autoStartMaybe());
  }

  /** autoStartMaybe starts the bridge when the settings say so (the project's only if trusted). */
  async autoStartMaybe() {
    if (!nova.workspace.path) return;
    const ws = await this.projectSettings();
    if (this.autoStart(ws)) await this.start(false);
  }

  /** projectSettings is trust.projectSettings, telling the user once when it ignored some. */
  projectSettings() {
    return trust.projectSettings(locateBinary, (keys) => {
      if (this.toldUntrusted) return;
      this.toldUntrusted = true;
      const names = keys.map((k) => k.replace(`${ID}.`, "")).join(", ");
      nova.workspace.showInformativeMessage(
        `Claude IDE Bridge: this project's settings that run commands (${names}) are ignored: ${nova.workspace.path} is not a trusted folder. ` +
          "The project's .nova/Configuration.json may come with the repository. If you trust it, run Trust This Workspace (Extensions menu), then Start Claude Bridge."
      );
    });
  }

  /** trustWorkspace asks, then records this folder in the bridge's trust store. */
  async trustWorkspace() {
    const folder = nova.workspace.path;
    if (!folder) throw new Error("this window has no project folder to trust");
    const choice = await new Promise((resolve) => {
      nova.workspace.showActionPanel(
        `Trust ${folder}?\n\nTrusting a folder lets its project settings run commands (remote command, language servers, start with this workspace) ` +
          "and lets the bridge start language servers there, which read its toolchain files, node_modules and build scripts, so they can run code it contains.",
        { buttons: ["Trust", "Cancel"] },
        resolve
      );
    });
    if (choice !== 0) return false;
    await trustFolder(await locateBinary(), folder);
    this.toldUntrusted = false;
    this.tell("Workspace trusted", `${folder} is trusted (revoke: claude-ide-bridge trust --revoke). Its project settings apply from the next Start Claude Bridge.`);
    return true;
  }

  async deactivate() {
    for (const d of this.disposables) d.dispose();
    this.disposables = [];
    this.tracker.dispose();
    await this.stop();
  }

  /**
   * autoStart: the project setting (read from ws: nothing for an untrusted
   * folder) wins over the global one; only windows with a folder start.
   */
  autoStart(ws) {
    if (!nova.workspace.path) return false;
    const local = ws.get(`${ID}.workspaceAutoStart`, "string");
    if (local === "on") return true;
    if (local === "off") return false;
    const global = nova.config.get(`${ID}.autoStart`, "boolean");
    return global === null ? true : global;
  }

  guard(promise) {
    return Promise.resolve(promise).catch((err) => {
      // The bridge's words may carry a path the workspace chose.
      nova.workspace.showErrorMessage(`Claude IDE Bridge: ${escapeControls(errorText(err))}`);
    });
  }

  tell(title, body) {
    const note = new NotificationRequest(`${ID}-${Date.now()}-${Math.random()}`);
    note.title = title;
    note.body = body;
    nova.notifications.add(note).catch(() => {});
  }

  /** start runs the sidecar unless it runs already; resolves with the initialize result. */
  async start(announce) {
    if (this.session && this.session.running && this.session.info) return this.session.info;
    if (this.starting) return this.starting;
    this.starting = this.launch(announce).finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  async launch(announce) {
    const ws = await this.projectSettings();
    const remote = remoteConfig(ws);
    this.remote = remote;
    const binary = remote ? null : await locateBinary();
    const storage = nova.extension.workspaceStoragePath || nova.extension.globalStoragePath;
    const proposals = new Proposals({
      request: (m, p) => session.request(m, p),
      tell: (t, b) => this.tell(t, b),
      dir: nova.path.join(storage, "proposals"),
    });
    const review = new Review({
      request: (m, p) => session.request(m, p),
      tell: (t, b) => this.tell(t, b),
      dir: nova.path.join(storage, "review"),
    });
    const permissions = new Permissions({
      request: (m, p) => session.request(m, p),
      tell: (t, b) => this.tell(t, b),
    });
    const session = new Session({
      handlers: makeHandlers({ proposals, permissions }),
      onNotify: (method, params) => {
        if (method === "permissionWithdrawn") return permissions.withdrawn(params);
        if (method === "claudeState") return review.state(params);
        if (method === "turnEnded") return review.turnEnded(params);
        this.clients = (params && params.clients) || 0;
        // Claude is told once; each other agent (it connects once) when it comes.
        const who = params && agentTitle(params.agent);
        if (method === "clientConnected" && (this.clients === 1 || who !== "Claude")) this.tell(`${who} connected`, `${who} is attached to this workspace.`);
      },
      onExit: (status, stderr) => this.exited(session, status, stderr),
    });
    this.session = session;
    this.proposals = proposals;
    this.review = review;
    this.permissions = permissions;
    let info;
    try {
      info = await session.start(binary, remote, ws);
    } catch (err) {
      await session.stop();
      throw err;
    }
    this.tracker.forget();
    const active = nova.workspace.activeTextEditor;
    if (active) this.tracker.schedule(active);
    if (announce) this.tell(`Claude bridge on port ${info.port}`, "Run `claude` in a terminal here; use Copy Terminal Command for a shell that does not see the port.");
    return info;
  }

  exited(session, status, stderr) {
    if (this.session !== session) return;
    const stopping = this.stopping;
    this.session = null;
    this.clients = 0;
    if (this.proposals) this.proposals.dispose();
    this.proposals = null;
    if (this.review) this.review.dispose();
    this.review = null;
    if (this.permissions) this.permissions.dispose();
    this.permissions = null;
    const remote = this.remote;
    if (!stopping && remote) {
      // The remote command died (ssh dropped, container restarted): say why.
      nova.workspace.showErrorMessage(
        `The remote Claude bridge (${remote.cmd.join(" ")}) ended with status ${status}.${stderr ? "\n\n" + escapeControls(stderr) : ""}` +
          "\n\nIts diffs were closed unaccepted; nothing was written. Start Claude Bridge starts it again."
      );
    } else if (!stopping && status !== 0) {
      nova.workspace.showErrorMessage(`Claude IDE Bridge stopped (status ${status}).${stderr ? "\n\n" + stderr : ""}`);
    }
  }

  async stop() {
    // A start under way ends first: its sidecar is stopped below, and a Start after this
    // one starts anew instead of joining a start whose sidecar was stopped.
    if (this.starting) await this.starting.catch(() => {});
    const session = this.session;
    if (!session) return;
    this.stopping = true;
    try {
      await session.stop();
    } finally {
      this.stopping = false;
      if (this.session === session) this.exited(session, 0, "");
    }
  }

  /**
   * copyTerminalCommand puts the line that runs claude (or agent: "gemini", "qwen") on the
   * clipboard, as the bridge composes it (claudeCommand: the permission flag, its hooks,
   * --mcp-config, the environment for a shell that did not inherit it; for an agent, the
   * variable naming this bridge's companion); its program the bridge found outside the
   * workspace, or in remote mode the remote's, with argv run through the remote command.
   */
  async copyTerminalCommand(agent) {
    await this.start(false);
    if (!this.session) throw new Error("the bridge is not running");
    const remote = this.remote;
    const c = await this.session.request("claudeCommand", Object.assign(remote ? { remote: true } : {}, agent ? { agent } : {}));
    let line = c.shell;
    if (remote) {
      const dir = toRemote(remote, nova.workspace.path || "");
      if (dir === null) throw new Error(`${nova.workspace.path} is outside the Path map setting`);
      line = remoteTerminalCommand(remote, c.env, dir, c.argv);
    }
    await nova.clipboard.writeText(line);
    if (agent) this.tell(`${agentTitle(agent)} command copied`, `${line}\n\nIDE mode must be on in its settings (/ide enable once).`);
    else this.tell("Terminal command copied", c.notice ? `${line}\n\n${c.notice}.` : line);
  }

  async mention(editor, wholeFile) {
    const target = editor && editor.document ? editor : nova.workspace.activeTextEditor;
    if (!target) throw new Error("no file is active");
    const params = mentionOf(target, wholeFile);
    if (!params) throw new Error("save the file first: Claude can only be sent files with a path");
    await this.start(false);
    if (!this.session) throw new Error("the bridge is not running");
    const result = await this.session.request("atMentioned", params);
    if (result && result.held) {
      this.tell("Sent to Claude when it connects", "No Claude is connected; the mention waits 30 seconds for one.");
    }
    return result;
  }

  async closeAllDiffs() {
    if (!this.session) return;
    const result = await this.session.request("closeAllDiffs", {});
    if (result && result.restored && result.restored.length) {
      this.tell("Accepted edits kept", `Put back as unsaved changes: ${result.restored.join(", ")}`);
    }
  }

  /** reviewTurn: Review Claude's Last Turn. */
  async reviewTurn() {
    await this.start(false);
    if (!this.review) throw new Error("the bridge is not running");
    return this.review.show(0);
  }

  async showStatus() {
    if (!this.session) {
      nova.workspace.showInformativeMessage("The Claude bridge is not running.");
      return;
    }
    const s = await this.session.request("status", {});
    const diffs = (s.diffs || [])
      .map((d) => `${d.state}: ${d.filePath}`)
      .concat(this.review ? this.review.summary() : [])
      .join("\n");
    nova.workspace.showInformativeMessage(
      `Claude bridge on port ${s.port}, ${s.clientsLine}.\nLock: ${s.lockPath}${diffs ? "\n" + diffs : ""}`
    );
  }
}

let extension = null;

exports.activate = function () {
  extension = new ClaudeBridgeExtension();
  extension.activate();
};

exports.deactivate = function () {
  const ext = extension;
  extension = null;
  return ext ? ext.deactivate() : undefined;
};

exports.mentionOf = mentionOf;
exports.escapeControls = escapeControls;
