// Untrusted text (the model's, a remote process's) made safe to show.

"use strict";

const MULTI = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const ONE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * escapeControls shows control and bidirectional characters as \uXXXX (tabs and line breaks
 * too when oneLine), and cuts the text at max characters (none: no cut) with " …".
 * @param {unknown} s
 * @param {{ oneLine?: boolean, max?: number }} [opts]
 */
function escapeControls(s, opts = {}) {
  let t = String(s);
  const cut = opts.max !== undefined && t.length > opts.max;
  if (cut) t = t.slice(0, opts.max);
  t = t.replace(opts.oneLine ? ONE : MULTI, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return cut ? t + " …" : t;
}

// The agents the bridge serves, by showDiff's or askPermission's "agent".
const AGENTS = new Map([["claude", "Claude"], ["gemini", "Gemini"], ["qwen", "Qwen"]]);

/** agentTitle names an agent for people: a known one, Claude when absent, else "An agent" (never the bridge's text). */
function agentTitle(agent) {
  return agent === undefined || agent === null ? "Claude" : AGENTS.get(agent) || "An agent";
}

module.exports = { escapeControls, agentTitle };
