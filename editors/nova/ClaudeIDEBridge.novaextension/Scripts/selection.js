// SelectionTracker follows the user's selection through
// TextEditor.onDidChangeSelection and reports it, debounced, as the editor
// protocol's selectionChanged notification.

"use strict";

const { selectionOf } = require("./editors.js");

class SelectionTracker {
  /**
   * send(selection) delivers one Selection. ignore(editor) returns true for
   * editors whose selection must not reach Claude (staged proposals).
   * @param {{send: (sel: any) => any, ignore?: (editor: TextEditor) => boolean, delayMs?: number}} opts
   */
  constructor({ send, ignore, delayMs }) {
    this.send = send;
    this.ignore = ignore || (() => false);
    this.delayMs = delayMs === undefined ? 100 : delayMs;
    this.subscriptions = new Map(); // TextEditor -> [Disposable]
    this.pending = null;
    this.timer = null;
    this.last = null;
    this.disposed = false;
  }

  /** watch subscribes to editor once, however often it is called for it. */
  watch(editor) {
    if (this.disposed || this.subscriptions.has(editor)) return;
    const subs = [
      editor.onDidChangeSelection((e) => this.schedule(e || editor)),
      editor.onDidDestroy(() => this.unwatch(editor)),
    ];
    this.subscriptions.set(editor, subs);
  }

  unwatch(editor) {
    const subs = this.subscriptions.get(editor);
    if (!subs) return;
    this.subscriptions.delete(editor);
    for (const s of subs) s.dispose();
    if (this.pending === editor) this.pending = null;
  }

  schedule(editor) {
    if (this.disposed) return;
    this.pending = editor;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, this.delayMs);
  }

  /** flush sends the pending editor's selection now, unless it repeats the last one sent. */
  flush() {
    const editor = this.pending;
    this.pending = null;
    if (!editor || this.ignore(editor)) return;
    const sel = selectionOf(editor);
    if (!sel) return;
    const key = JSON.stringify(sel);
    if (key === this.last) return;
    this.last = key;
    this.send(sel);
  }

  /** forget makes the next selection be sent even if it repeats (a new bridge session). */
  forget() {
    this.last = null;
  }

  dispose() {
    this.disposed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    for (const editor of Array.from(this.subscriptions.keys())) this.unwatch(editor);
  }
}

module.exports = { SelectionTracker };
