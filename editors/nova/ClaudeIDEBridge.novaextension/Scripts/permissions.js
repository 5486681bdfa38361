// Claude's permission questions (askPermission, docs/editor-protocol.md): each one a
// notification with actions. Claude's terminal asks too and the first answer wins; a question
// answered there is withdrawn (permissionWithdrawn) and its notification cancelled.

"use strict";

const { escapeControls, agentTitle } = require("./text.js");
const { errorText } = require("./proposals.js");

const ID = "claude-ide-bridge";
const MAX = 4096;
const REASON = "Deny with Reason…";

/**
 * capability is the askPermission capability the settings give: false (off), the tool names
 * ("Bash", "mcp__*": a trailing * is a prefix) or true (every tool).
 * @returns {boolean | string[]}
 */
function capability() {
  if (nova.config.get(`${ID}.permissions`, "boolean") === false) return false;
  const tools = (nova.config.get(`${ID}.permissionTools`, "array") || []).map((s) => s.trim()).filter(Boolean);
  return tools.length ? tools : true;
}

/** describe is a tool input as one escaped line: its command, URL or file, else its JSON. */
function describe(input) {
  if (typeof input === "string") return escapeControls(input, { oneLine: true, max: MAX });
  if (input && typeof input === "object") {
    for (const k of ["command", "url", "file_path"]) {
      if (typeof input[k] === "string") return `${k}: ${escapeControls(input[k], { oneLine: true, max: MAX })}`;
    }
    return escapeControls(JSON.stringify(input), { oneLine: true, max: MAX });
  }
  return "";
}

class Permissions {
  /** request(method, params) reaches the bridge; tell(title, body) notifies the user. */
  constructor({ request, tell }) {
    this.request = request;
    this.tell = tell;
    /** @type {Map<number, string>} question id → its notification's identifier */
    this.pending = new Map();
  }

  /** ask shows askPermission params as a notification and answers {} (shown). */
  ask(params) {
    if (!params || typeof params.id !== "number") throw new Error("askPermission needs a numeric id");
    if (capability() === false) throw new Error("permission questions are off in Nova's settings");
    const id = params.id;
    const note = new NotificationRequest(`${ID}-permission-${id}-${Date.now()}`);
    const tool = escapeControls(params.tool || "?", { oneLine: true, max: 200 });
    const who = agentTitle(params.agent);
    note.title = `${who} asks to use ${tool}`;
    note.body = `${describe(params.input)}\n\nSession ${escapeControls(params.session || "", { oneLine: true, max: 64 }).slice(0, 8)}. ${who}'s terminal asks too; the first answer wins.`;
    const always = Array.isArray(params.suggestions) && params.suggestions.length > 0;
    const actions = ["Allow", ...(always ? ["Always Allow"] : []), "Deny", REASON];
    note.actions = actions;
    this.pending.set(id, note.identifier);
    nova.notifications.add(note).then(
      (r) => this.answered(id, r && typeof r.actionIdx === "number" ? actions[r.actionIdx] : null),
      () => {}
    );
    return {};
  }

  /** answered sends the decision of action on question id, unless it was withdrawn meanwhile. */
  async answered(id, action) {
    if (!action || !this.pending.has(id)) return; // dismissed, or withdrawn (cancelled)
    /** @type {{ behavior: string, message?: string, always?: boolean }} */
    let decision = { behavior: action === "Deny" ? "deny" : "allow" };
    if (action === "Always Allow") decision.always = true;
    if (action === REASON) {
      const reason = await new Promise((resolve) =>
        nova.workspace.showInputPanel("Why not? Claude gets the reason.", { label: "Reason", prompt: "Deny" }, resolve)
      );
      if (reason === null || reason === undefined) return; // cancelled: the terminal still asks
      decision = { behavior: "deny", message: reason };
    }
    if (!this.pending.has(id)) {
      this.tell("Claude's question was withdrawn", "It was answered in Claude's terminal (or its session ended); nothing was sent.");
      return;
    }
    this.pending.delete(id);
    try {
      await this.request("permissionDecided", Object.assign({ id }, decision));
    } catch (err) {
      this.tell("Claude's question was not answered here", errorText(err));
    }
  }

  /** withdrawn takes down the notification of permissionWithdrawn params' question. */
  withdrawn(params) {
    const ident = params && this.pending.get(params.id);
    if (!ident) return;
    this.pending.delete(params.id);
    nova.notifications.cancel(ident);
  }

  dispose() {
    for (const ident of this.pending.values()) nova.notifications.cancel(ident);
    this.pending.clear();
  }
}

module.exports = { Permissions, capability, describe };
