// A stand-in for the part of Nova's extension API the extension uses, so its
// scripts run under Node. Nova itself (a closed-source macOS app) cannot run
// here: these tests exercise the extension's scripts against this model of
// Nova, not Nova. Each stub follows the reference page listed beside it
// (signatures cross-checked with DefinitelyTyped's @types/nova-editor-node,
// which is written from those pages). Where the docs are silent the
// assumption is stated.
//
// API used by the extension → reference:
//   nova.workspace.path                      https://docs.nova.app/api-reference/workspace/
//   nova.workspace.config                    https://docs.nova.app/api-reference/workspace/
//   nova.workspace.textEditors               https://docs.nova.app/api-reference/workspace/
//   nova.workspace.textDocuments             https://docs.nova.app/api-reference/workspace/
//   nova.workspace.activeTextEditor          https://docs.nova.app/api-reference/workspace/
//   nova.workspace.openFile(uri)             https://docs.nova.app/api-reference/workspace/
//   nova.workspace.onDidAddTextEditor        https://docs.nova.app/api-reference/workspace/
//   nova.workspace.onDidChangePath           https://docs.nova.app/api-reference/workspace/
//   nova.workspace.showErrorMessage          https://docs.nova.app/api-reference/workspace/
//   nova.workspace.showInformativeMessage    https://docs.nova.app/api-reference/workspace/
//   nova.workspace.showActionPanel           https://docs.nova.app/api-reference/workspace/
//   nova.workspace.showInputPanel(message, options, callback)
//                                            https://docs.nova.app/api-reference/workspace/
//     (the callback gets the text entered, or null when cancelled; the stand-in records
//     the panel in inputs and waits for user.input(text))
//   nova.workspace.showChoicePalette(choices, options, callback)
//                                            https://docs.nova.app/api-reference/workspace/
//     (the callback gets the choice and its index, or null when dismissed; the stand-in
//     records the choices and answers standin.choiceAnswer, an index, default null)
//     (the callback gets the index of the button chosen, or null when dismissed; the
//     stand-in answers standin.panelAnswer, default null, and records the message)
//   TextEditor.document / selectedRange / getTextInRange / edit / save / scrollToPosition /
//     onDidChangeSelection / onDidSave / onDidDestroy
//                                            https://docs.nova.app/api-reference/text-editor/
//   TextEditorEdit.replace                   https://docs.nova.app/api-reference/text-editor-edit/
//   TextDocument.path / uri / isDirty / isUntitled / length / syntax / eol / getTextInRange
//                                            https://docs.nova.app/api-reference/text-document/
//   Range (UTF-16 offsets)                   https://docs.nova.app/api-reference/range/
//   Process (args, cwd, stdio "jsonrpc" and pipes; start, request, notify, onRequest,
//     onNotify, onStdout, onStderr, onDidExit, terminate, kill)
//                                            https://docs.nova.app/api-reference/process/
//   ProcessMessage (parameters, errorCode, errorReason)
//                                            https://docs.nova.app/api-reference/process-message/
//   nova.commands.register / invoke          https://docs.nova.app/api-reference/commands-registry/
//   nova.config.get                          https://docs.nova.app/api-reference/configuration/
//   nova.clipboard.writeText                 https://docs.nova.app/api-reference/clipboard/
//   nova.notifications.add / cancel, NotificationRequest (title, body, actions)
//                                            https://docs.nova.app/api-reference/notification-center/
//                                            https://docs.nova.app/api-reference/notification-request/
//     (add's promise settles "when the notification is dismissed or fails" with a
//     NotificationResponse {identifier, actionIdx}; the docs are silent on cancel: the
//     stand-in resolves it with actionIdx null, and the extension reads a rejection the
//     same way. A notification with actions waits for user.click(note, action).)
//   nova.fs.access / stat / open("w") / mkdir / listdir / remove / rmdir, F_OK, X_OK
//                                            https://docs.nova.app/api-reference/file-system/
//   nova.path.join / basename / dirname / normalize / expanduser
//                                            https://docs.nova.app/api-reference/path/
//   nova.extension.path / workspaceStoragePath / globalStoragePath
//                                            https://docs.nova.app/api-reference/extension/
//   Disposable                               https://docs.nova.app/api-reference/disposable/
//
// Process framing: Nova does not document the wire format of stdio "jsonrpc".
// Node-side services written for it (e.g. the Prettier extension's
// prettier-service/json-rpc.js) read and write LSP-style
// "Content-Length: N\r\n\r\n" frames, so this stand-in speaks that framing to
// the real bridge binary. (docs/editor-protocol.md lists Nova under newline
// framing; the bridge detects either from the first byte.)
//
// Assumed where the docs are silent: a handler of Process.onRequest that
// throws (or rejects) answers with a JSON-RPC error carrying the message;
// Process.request rejects with a ProcessMessage-like Error on an error answer.

"use strict";

const fs = require("node:fs");
const os = require("node:os");
const nodePath = require("node:path");
const childProcess = require("node:child_process");

class Range {
  constructor(start, end) {
    if (end < start) throw new Error(`Range end ${end} before start ${start}`);
    this.start = start;
    this.end = end;
  }
  get length() {
    return this.end - this.start;
  }
  get empty() {
    return this.start === this.end;
  }
  isEqual(other) {
    return this.start === other.start && this.end === other.end;
  }
}

/** Event is a tiny callback list whose subscriptions are Disposables. */
class Event {
  constructor() {
    this.callbacks = new Set();
  }
  on(callback) {
    const entry = { callback };
    this.callbacks.add(entry);
    return { dispose: () => this.callbacks.delete(entry) };
  }
  fire(...args) {
    for (const entry of Array.from(this.callbacks)) entry.callback(...args);
  }
  get size() {
    return this.callbacks.size;
  }
}

const SYNTAX = { ".go": "go", ".js": "javascript", ".txt": "plaintext", ".md": "markdown", ".py": "python" };

class TextDocument {
  constructor(path, text) {
    this.path = path;
    this.text = text;
    this.isDirty = false;
    this.isClosed = false;
  }
  get uri() {
    return "file://" + encodeURI(this.path);
  }
  get isUntitled() {
    return !this.path;
  }
  get isRemote() {
    return false;
  }
  get length() {
    return this.text.length; // UTF-16 code units, as JavaScript counts
  }
  get isEmpty() {
    return this.text.length === 0;
  }
  get eol() {
    return this.text.includes("\r\n") ? "\r\n" : "\n";
  }
  get syntax() {
    return SYNTAX[nodePath.extname(this.path || "")] || null;
  }
  getTextInRange(range) {
    if (range.end > this.text.length) throw new Error(`range ${range.start}-${range.end} past the end ${this.text.length}`);
    return this.text.slice(range.start, range.end);
  }
}

class TextEditor {
  constructor(document) {
    this.document = document;
    this._selected = new Range(0, 0);
    this._onSelection = new Event();
    this._onSave = new Event();
    this._onDestroy = new Event();
    this._onChange = new Event();
    this.scrolledTo = null;
  }
  get selectedRange() {
    return this._selected;
  }
  set selectedRange(range) {
    this._selected = new Range(range.start, range.end);
    this._onSelection.fire(this);
  }
  get selectedRanges() {
    return [this._selected];
  }
  get selectedText() {
    return this.document.getTextInRange(this._selected);
  }
  getTextInRange(range) {
    return this.document.getTextInRange(range);
  }
  /** edit applies the callback's edits, each against the text before the edit session. */
  async edit(callback) {
    const ops = [];
    callback({
      replace: (range, text) => ops.push({ start: range.start, end: range.end, text }),
      insert: (pos, text) => ops.push({ start: pos, end: pos, text }),
      delete: (range) => ops.push({ start: range.start, end: range.end, text: "" }),
    });
    ops.sort((a, b) => b.start - a.start);
    let text = this.document.text;
    for (const op of ops) text = text.slice(0, op.start) + op.text + text.slice(op.end);
    this.document.text = text;
    this.document.isDirty = true;
    if (this._selected.end > text.length) this._selected = new Range(text.length, text.length);
    this._onChange.fire(this);
  }
  /** save writes the document to its path, as Nova's Save does. */
  async save() {
    fs.writeFileSync(this.document.path, this.document.text);
    this.document.isDirty = false;
    this._onSave.fire(this);
  }
  scrollToPosition(pos) {
    this.scrolledTo = pos;
  }
  onDidChangeSelection(cb) {
    return this._onSelection.on(cb);
  }
  onDidSave(cb) {
    return this._onSave.on(cb);
  }
  onDidDestroy(cb) {
    return this._onDestroy.on(cb);
  }
  onDidChange(cb) {
    return this._onChange.on(cb);
  }
}

/** Config models nova.config / nova.workspace.config with get(key, coerce). */
class Config {
  constructor(values) {
    this.values = new Map(Object.entries(values || {}));
    this.changes = new Event();
  }
  get(key, coerce) {
    if (!this.values.has(key)) return null;
    const v = this.values.get(key);
    if (coerce === "boolean") return !!v;
    if (coerce === "string") return v === null ? null : String(v);
    if (coerce === "array") return Array.isArray(v) ? v.map(String) : null;
    return v;
  }
  set(key, value) {
    this.values.set(key, value);
    this.changes.fire(key, value);
  }
  onDidChange(key, cb) {
    return this.changes.on((k, v) => k === key && cb(v));
  }
  observe(key, cb) {
    cb(this.get(key));
    return this.onDidChange(key, cb);
  }
}

/** frameWriter and FrameReader implement Content-Length framing (see the header comment). */
function frame(message) {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]);
}

class FrameReader {
  constructor(onMessage) {
    this.buf = Buffer.alloc(0);
    this.onMessage = onMessage;
  }
  push(chunk) {
    this.buf = Buffer.concat([this.buf, chunk]);
    for (;;) {
      const headerEnd = this.buf.indexOf("\r\n\r\n");
      if (headerEnd < 0) return;
      const header = this.buf.subarray(0, headerEnd).toString("ascii");
      const m = /content-length:\s*(\d+)/i.exec(header);
      if (!m) throw new Error(`frame without Content-Length: ${JSON.stringify(header)}`);
      const n = Number(m[1]);
      if (this.buf.length < headerEnd + 4 + n) return;
      const body = this.buf.subarray(headerEnd + 4, headerEnd + 4 + n).toString("utf8");
      this.buf = this.buf.subarray(headerEnd + 4 + n);
      this.onMessage(JSON.parse(body));
    }
  }
}

function lineSplitter(cb) {
  let rest = "";
  return (chunk) => {
    rest += chunk.toString("utf8");
    let i;
    while ((i = rest.indexOf("\n")) >= 0) {
      cb(rest.slice(0, i + 1));
      rest = rest.slice(i + 1);
    }
  };
}

/** makeProcessClass binds Process to a stand-in (for its environment and bookkeeping). */
function makeProcessClass(standin) {
  return class Process {
    constructor(command, options) {
      this.command = command;
      this.options = options || {};
      this.args = this.options.args || [];
      this.child = null;
      this.nextId = 1;
      this.pending = new Map();
      this.requestHandlers = new Map();
      this.notifyHandlers = new Map();
      this.stdoutEvent = new Event();
      this.stderrEvent = new Event();
      this.exitEvent = new Event();
    }
    get pid() {
      return this.child ? this.child.pid : 0;
    }
    get jsonrpc() {
      return this.options.stdio === "jsonrpc";
    }
    start() {
      if (this.child) throw new Error("Process already started");
      const child = childProcess.spawn(this.command, this.args, {
        cwd: this.options.cwd,
        env: Object.assign({}, standin.processEnv, this.options.env || {}),
        stdio: ["pipe", "pipe", "pipe"],
      });
      this.child = child;
      standin.processes.add(this);
      child.on("error", (err) => this.stderrEvent.fire(`spawn: ${err.message}\n`));
      child.stdin.on("error", () => {});
      if (this.jsonrpc) {
        const reader = new FrameReader((msg) => this.dispatch(msg));
        child.stdout.on("data", (chunk) => reader.push(chunk));
      } else {
        child.stdout.on("data", lineSplitter((line) => this.stdoutEvent.fire(line)));
      }
      child.stderr.on("data", lineSplitter((line) => this.stderrEvent.fire(line)));
      child.on("close", (code, signal) => {
        standin.processes.delete(this);
        for (const p of this.pending.values()) p.reject(new Error("process exited"));
        this.pending.clear();
        this.exitEvent.fire(code === null ? 128 + (os.constants.signals[signal] || 0) : code);
      });
    }
    write(message) {
      if (!this.child || !this.child.stdin.writable) return;
      // A test holds a message back (standin.hold) to let the bridge's next one overtake it.
      if (standin.hold && standin.hold(message)) {
        standin.held.push(() => this.write(message));
        return;
      }
      standin.wire.push({ from: "editor", msg: message });
      this.child.stdin.write(frame(Object.assign({ jsonrpc: "2.0" }, message)));
    }
    dispatch(msg) {
      standin.wire.push({ from: "bridge", msg });
      if (msg.method === undefined) {
        const p = this.pending.get(msg.id);
        if (!p) return;
        this.pending.delete(msg.id);
        if (msg.error) {
          const err = new Error(msg.error.message);
          err.errorCode = msg.error.code;
          err.errorReason = msg.error.message;
          err.errorData = msg.error.data === undefined ? null : msg.error.data;
          p.reject(err);
        } else {
          p.resolve(msg.result);
        }
        return;
      }
      const message = { method: msg.method, parameters: msg.params, result: null, errorCode: null, errorReason: null, errorData: null };
      if (msg.id === undefined) {
        for (const cb of this.notifyHandlers.get(msg.method) || []) cb(message);
        return;
      }
      const handler = this.requestHandlers.get(msg.method);
      if (!handler) {
        this.write({ id: msg.id, error: { code: -32601, message: `no handler for ${msg.method}` } });
        return;
      }
      Promise.resolve()
        .then(() => handler(message))
        .then(
          (result) => this.write({ id: msg.id, result: result === undefined ? null : result }),
          (err) => this.write({ id: msg.id, error: { code: -32603, message: (err && err.message) || String(err) } })
        );
    }
    request(method, params) {
      const id = this.nextId++;
      return new Promise((resolve, reject) => {
        this.pending.set(id, { resolve, reject });
        this.write({ id, method, params });
      });
    }
    notify(method, params) {
      this.write({ method, params });
    }
    onRequest(method, cb) {
      this.requestHandlers.set(method, cb);
      return { dispose: () => this.requestHandlers.delete(method) };
    }
    onNotify(method, cb) {
      if (!this.notifyHandlers.has(method)) this.notifyHandlers.set(method, []);
      this.notifyHandlers.get(method).push(cb);
      return { dispose: () => {} };
    }
    onStdout(cb) {
      return this.stdoutEvent.on(cb);
    }
    onStderr(cb) {
      return this.stderrEvent.on(cb);
    }
    onDidExit(cb) {
      return this.exitEvent.on(cb);
    }
    terminate() {
      if (this.child) this.child.kill("SIGTERM");
    }
    kill() {
      if (this.child) this.child.kill("SIGKILL");
    }
    signal(sig) {
      if (this.child) this.child.kill(sig);
    }
  };
}

/**
 * install puts a fresh stand-in Nova into globalThis and returns it with
 * helpers that play the user. opts: workspacePath, storagePath,
 * extensionPath, config (global settings), workspaceConfig, processEnv (the
 * environment Nova itself runs with).
 */
function install(opts) {
  const standin = {
    processEnv: opts.processEnv || process.env,
    processes: new Set(),
    wire: [],
    notifications: [],
    errors: [],
    infos: [],
    clipboard: "",
    commands: new Map(),
    panels: [],
    panelAnswer: null,
    palettes: [],
    choiceAnswer: null,
    inputs: [],
    // hold(message) true keeps an extension→bridge message in held until release().
    hold: null,
    held: [],
    release() {
      this.hold = null;
      for (const send of this.held.splice(0)) send();
    },
  };
  const editors = [];
  let active = null;
  const onAdd = new Event();
  const onPath = new Event();
  const X_OK = fs.constants.X_OK;
  const F_OK = fs.constants.F_OK;

  const toPath = (uri) => (uri.startsWith("file://") ? decodeURI(uri.slice(7)) : uri);

  const workspace = {
    path: opts.workspacePath || null,
    config: new Config(opts.workspaceConfig),
    get textEditors() {
      return editors.slice();
    },
    get textDocuments() {
      return Array.from(new Set(editors.map((e) => e.document)));
    },
    get activeTextEditor() {
      return active;
    },
    async openFile(uri) {
      const path = toPath(uri);
      let editor = editors.find((e) => e.document.path === path);
      if (!editor) {
        let text;
        try {
          text = fs.readFileSync(path, "utf8");
        } catch {
          return null;
        }
        const doc = editors.map((e) => e.document).find((d) => d.path === path) || new TextDocument(path, text);
        editor = new TextEditor(doc);
        editors.push(editor);
        active = editor;
        onAdd.fire(editor);
      }
      active = editor;
      return editor;
    },
    onDidAddTextEditor(cb) {
      return onAdd.on(cb);
    },
    onDidChangePath(cb) {
      return onPath.on(cb);
    },
    showErrorMessage(m) {
      standin.errors.push(m);
    },
    showInformativeMessage(m) {
      standin.infos.push(m);
    },
    showWarningMessage(m) {
      standin.infos.push(m);
    },
    showChoicePalette(choices, options, callback) {
      standin.palettes.push({ choices: choices.slice(), placeholder: options && options.placeholder });
      const i = standin.choiceAnswer;
      setImmediate(() => (typeof i === "number" ? callback(choices[i], i) : callback(null, null)));
    },
    showInputPanel(message, options, callback) {
      standin.inputs.push({ message, options, callback });
    },
    showActionPanel(message, options, callback) {
      standin.panels.push({ message, buttons: (options && options.buttons) || [] });
      setImmediate(() => callback(standin.panelAnswer === undefined ? null : standin.panelAnswer));
    },
  };

  const nova = {
    workspace,
    config: new Config(opts.config),
    extension: {
      identifier: "dev.claude-ide-bridge.nova",
      path: opts.extensionPath,
      globalStoragePath: nodePath.join(opts.storagePath, "global"),
      workspaceStoragePath: nodePath.join(opts.storagePath, "workspace"),
    },
    path: {
      join: (...p) => nodePath.join(...p),
      basename: (p) => nodePath.basename(p),
      dirname: (p) => nodePath.dirname(p),
      extname: (p) => nodePath.extname(p),
      normalize: (p) => nodePath.normalize(p),
      isAbsolute: (p) => nodePath.isAbsolute(p),
      expanduser: (p) => (p.startsWith("~/") ? nodePath.join(os.homedir(), p.slice(2)) : p),
    },
    fs: {
      F_OK,
      X_OK,
      access(p, mode) {
        try {
          fs.accessSync(p, mode);
          return true;
        } catch {
          return false;
        }
      },
      stat(p) {
        try {
          return fs.statSync(p);
        } catch {
          return null;
        }
      },
      mkdir(p) {
        fs.mkdirSync(p);
      },
      listdir(p) {
        return fs.readdirSync(p);
      },
      remove(p) {
        fs.unlinkSync(p);
      },
      rmdir(p) {
        fs.rmdirSync(p);
      },
      open(p, mode) {
        if (mode !== "w") throw new Error(`stand-in supports only mode "w", got ${mode}`);
        let data = "";
        let closed = false;
        return {
          path: p,
          get closed() {
            return closed;
          },
          write(v) {
            data += v;
          },
          close() {
            fs.writeFileSync(p, data);
            closed = true;
          },
        };
      },
    },
    clipboard: {
      async writeText(t) {
        standin.clipboard = t;
      },
      async readText() {
        return standin.clipboard;
      },
    },
    commands: {
      register(name, cb) {
        standin.commands.set(name, cb);
        return { dispose: () => standin.commands.delete(name) };
      },
      // Nova passes an editor command the TextEditor, other commands the workspace.
      async invoke(name, target, ...args) {
        const cb = standin.commands.get(name);
        if (!cb) throw new Error(`no command ${name}`);
        return cb(target || workspace, ...args);
      },
    },
    notifications: {
      add(request) {
        const note = { identifier: request.identifier, title: request.title, body: request.body, actions: request.actions, cancelled: false };
        standin.notifications.push(note);
        if (!request.actions || !request.actions.length) return Promise.resolve({ identifier: request.identifier, actionIdx: null });
        return new Promise((resolve) => {
          note.resolve = (actionIdx) => {
            note.resolve = null;
            resolve({ identifier: request.identifier, actionIdx });
          };
        });
      },
      cancel(identifier) {
        for (const note of standin.notifications) {
          if (note.identifier === identifier && note.resolve) {
            note.cancelled = true;
            note.resolve(null);
          }
        }
      },
    },
  };

  class NotificationRequest {
    constructor(identifier) {
      this.identifier = identifier;
    }
  }

  globalThis.nova = nova;
  globalThis.Range = Range;
  globalThis.Process = makeProcessClass(standin);
  globalThis.NotificationRequest = NotificationRequest;

  // The user's hands.
  standin.nova = nova;
  standin.user = {
    /** open a file as the user does; returns its editor, now active. */
    open: (path) => workspace.openFile(path),
    /** select [start, end) (UTF-16 offsets) in editor and focus it. */
    select(editor, start, end) {
      active = editor;
      editor.selectedRange = new Range(start, end === undefined ? start : end);
    },
    /** type replaces the whole text of editor, as edits by hand would. */
    type: (editor, text) => editor.edit((e) => e.replace(new Range(0, editor.document.length), text)),
    save: (editor) => editor.save(),
    /** close a tab (discarding unsaved changes, as "Don't Save" does). */
    close(editor) {
      const i = editors.indexOf(editor);
      if (i < 0) return;
      editors.splice(i, 1);
      if (active === editor) active = editors[editors.length - 1] || null;
      if (!editors.some((e) => e.document === editor.document)) editor.document.isClosed = true;
      editor._onDestroy.fire(editor);
    },
    /** announce editor again, as Nova may for editors open before activation. */
    reannounce(editor) {
      onAdd.fire(editor);
    },
    /** click the action of a notification still shown. */
    click(note, action) {
      const i = note.actions.indexOf(action);
      if (!note.resolve || i < 0) throw new Error(`no action ${action} on a shown notification ${note.title}`);
      note.resolve(i);
    },
    /** input answers the oldest open input panel (null: Cancel). */
    input(text) {
      const panel = standin.inputs.shift();
      if (!panel) throw new Error("no input panel is open");
      panel.callback(text);
    },
    changePath(path) {
      workspace.path = path;
      onPath.fire(path);
    },
  };
  standin.editorFor = (path) => editors.find((e) => e.document.path === path) || null;
  standin.run = (name, ...args) => nova.commands.invoke(name, ...args);
  return standin;
}

function uninstall() {
  delete globalThis.nova;
  delete globalThis.Range;
  delete globalThis.Process;
  delete globalThis.NotificationRequest;
}

module.exports = { install, uninstall, Range, FrameReader, frame };
