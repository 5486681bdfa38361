// Workspace trust (docs/security.md). A project's .nova/Configuration.json is
// where Nova keeps project settings, and many public repositories commit it: a
// cloned project's settings are the attacker's. So the project settings that
// run a command -- the remote command (and its path map), the project's
// language servers, "start with this workspace: Always" -- are read only when
// the folder is trusted; untrusted, the global settings alone apply and a
// project's configuration never starts a remote command.
//
// The trust store is the bridge's (`claude-ide-bridge trust DIR`, shared with
// serve and Neovim): Nova asks the local binary `trust --check DIR` and trusts
// with `trust DIR` (the Trust This Workspace command, after a confirmation).

"use strict";

const ID = "claude-ide-bridge";

/** COMMAND_SETTINGS are the project settings that make something run. */
const COMMAND_SETTINGS = [`${ID}.remoteCommand`, `${ID}.pathMap`, `${ID}.workspaceLanguageServers`];

/** UNTRUSTED reads no project setting. */
const UNTRUSTED = { get: () => null };

/** asked lists the project settings present that need trust (empty: nothing to ask). */
function asked() {
  const cfg = nova.workspace.config;
  const keys = COMMAND_SETTINGS.filter((k) => {
    const v = cfg.get(k);
    return Array.isArray(v) && v.some((s) => String(s) !== "");
  });
  if (cfg.get(`${ID}.workspaceAutoStart`, "string") === "on") keys.push(`${ID}.workspaceAutoStart`);
  return keys;
}

/** exec runs binary with args and resolves with its exit status and the start of its stderr (bounded). */
function exec(binary, args, timeoutMs) {
  return new Promise((resolve, reject) => {
    const proc = new Process(binary, { args, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    proc.onStderr((line) => {
      if (stderr.length < 4096) stderr += line.endsWith("\n") ? line : line + "\n";
    });
    const timer = setTimeout(() => {
      proc.kill();
      reject(new Error(`${binary} ${args[0]} did not finish`));
    }, timeoutMs);
    proc.onDidExit((status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
    proc.start();
  });
}

/** isTrusted asks the bridge's store whether folder is trusted. */
async function isTrusted(binary, folder) {
  if (!binary || !folder) return false;
  try {
    return (await exec(binary, ["trust", "--check", folder], 10000)).status === 0;
  } catch {
    return false;
  }
}

/**
 * trustFolder records folder as trusted in the bridge's store. A refusal (the
 * folder or one above it is another user's or writable by one: the bridge names
 * them and the command that accepts them) is thrown with the bridge's words.
 */
async function trustFolder(binary, folder) {
  const { status, stderr } = await exec(binary, ["trust", folder], 10000);
  if (status !== 0) throw new Error(stderr.trim() || `claude-ide-bridge trust ${folder} failed (status ${status})`);
}

/**
 * projectSettings resolves with the config to read project settings from:
 * nova.workspace.config when none that runs a command is set or the folder is
 * trusted, else one that reads nothing. binary() locates the local bridge.
 * told(keys) is called when settings were ignored.
 */
async function projectSettings(binary, told) {
  const keys = asked();
  if (keys.length === 0) return nova.workspace.config;
  let bin = null;
  try {
    bin = await binary();
  } catch {
    bin = null;
  }
  if (await isTrusted(bin, nova.workspace.path)) return nova.workspace.config;
  if (told) told(keys);
  return UNTRUSTED;
}

module.exports = { projectSettings, isTrusted, trustFolder, asked, UNTRUSTED };
