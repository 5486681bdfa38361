// Review Claude's Last Turn: the files a turn of Claude changed (the bridge keeps them whatever
// the permission mode: docs/review.md), chosen from a palette, each opened as a comparison the
// way proposals are shown (Nova has no diff view an extension can open): the turn's unified diff
// of that file, staged in the extension's storage (Nova colours .diff), beside the file itself.
// Also Claude's state from the bridge's hooks: a notification when a session waits for you,
// and each turn's summary.

"use strict";

const files = require("./files.js");

class Review {
  /** request(method, params) sends an editor→bridge request; tell(title, body) a notice; dir is the staging folder. */
  constructor({ request, tell, dir }) {
    this.request = request;
    this.tell = tell;
    this.dir = dir;
    this.states = new Map(); // sessionId -> { state, reason }
    files.removeTree(dir);
  }

  /** show lists turn's changed files (0: the last turn that changed one) and opens the one chosen. */
  async show(turn) {
    const answer = await this.request("review", { turn: turn || 0 });
    const r = answer && answer.report;
    const changed = (r && r.files) || [];
    if (changed.length === 0) {
      this.tell("Claude changed no file", r ? `Turn ${r.turn} changed nothing.` : "No turn yet.");
      return null;
    }
    const s = r.summary || {};
    const choices = changed.map((f) => `${f.status} ${nova.path.basename(f.path)} +${f.added} -${f.deleted}${f.binary ? " (binary)" : ""}`);
    const index = await new Promise((resolve) =>
      nova.workspace.showChoicePalette(choices, { placeholder: `Turn ${r.turn}: Claude changed ${s.files} file(s): +${s.added} -${s.deleted}` }, (_, i) =>
        resolve(typeof i === "number" ? i : null)
      )
    );
    if (index === null || index < 0 || index >= changed.length) return null;
    return this.open(r.turn, changed[index]);
  }

  /** open stages f's diff for turn and opens it, then the file itself (unless Claude deleted it). */
  async open(turn, f) {
    const dir = nova.path.join(this.dir, `turn-${turn}`);
    files.mkdirs(dir);
    const staged = nova.path.join(dir, `${nova.path.basename(f.path)}.diff`);
    const note = f.diff ? f.diff : `${f.status} ${f.path}: ${f.binary ? "binary" : f.tooBig ? "too big to keep" : "earlier text unknown"}, not diffed\n`;
    files.writeText(staged, note);
    const diffEditor = await files.openEditor(staged);
    const fileEditor = f.status === "deleted" ? null : await files.openEditor(f.path);
    return { diffEditor, fileEditor, staged };
  }

  /** state handles the bridge's claudeState notification. */
  state(p) {
    if (!p || typeof p.sessionId !== "string") return;
    const prev = this.states.get(p.sessionId);
    if (p.state === "ended") this.states.delete(p.sessionId);
    else this.states.set(p.sessionId, { state: p.state, reason: p.reason || "" });
    if (p.state === "waiting" && !(prev && prev.state === "waiting")) {
      this.tell("Claude is waiting for you", p.reason ? String(p.reason) : "Answer it in its terminal.");
    }
  }

  /** turnEnded handles the bridge's turnEnded notification. */
  turnEnded(p) {
    if (!p) return;
    this.tell(`Claude changed ${p.files} file(s): +${p.added} -${p.deleted}`, "Review Claude's Last Turn shows them.");
  }

  /** summary is the sessions' states for Show Claude Bridge Status. */
  summary() {
    return Array.from(this.states.entries()).map(([id, s]) => `Claude ${id.slice(0, 8)}: ${s.state}${s.reason ? ` (${s.reason})` : ""}`);
  }

  dispose() {
    files.removeTree(this.dir);
  }
}

module.exports = { Review };
