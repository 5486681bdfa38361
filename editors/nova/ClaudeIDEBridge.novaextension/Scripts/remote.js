// Remote mode: Claude Code runs on another machine (a host over SSH, a dev
// container, WSL) while Nova runs here. The bridge is started there through a
// command that carries stdio (`ssh build-box`, `docker exec -i box`) and
// translates paths (`serve --stdio --path-map LOCAL=REMOTE`, docs/remote.md),
// so the lock file, its pid and the port are where Claude runs.
//
// Settings (the project's first, then global):
//   claude-ide-bridge.remoteCommand: ["ssh", "build-box"] (one argument each)
//   claude-ide-bridge.pathMap: ["/Users/me/app=/srv/app"] (LOCAL=REMOTE)
// The project's are read from ws, which is empty for an untrusted folder
// (trust.js): a committed .nova/Configuration.json never starts a command.

"use strict";

const BRIDGE = "claude-ide-bridge"; // on the remote side's PATH

function setting(ws, key) {
  const w = ws.get(key);
  if (Array.isArray(w) && w.length > 0) return w;
  const g = nova.config.get(key);
  return Array.isArray(g) ? g : [];
}

/** config returns {cmd, pathMap} when remote mode is set, else null; ws: the project settings to read. */
function config(ws) {
  const cmd = setting(ws, "claude-ide-bridge.remoteCommand").map(String).filter((s) => s !== "");
  if (cmd.length === 0) return null;
  const pathMap = setting(ws, "claude-ide-bridge.pathMap").map(String).filter((s) => s !== "");
  for (const m of pathMap) {
    if (!/^[^=]+=[^=]/.test(m)) throw new Error(`Path map entry "${m}" is not LOCAL=REMOTE`);
  }
  return { cmd, pathMap };
}

/** shellQuote quotes s for a POSIX shell. */
function shellQuote(s) {
  return `'${String(s).replace(/'/g, `'\\''`)}'`;
}

function basename(p) {
  return String(p).replace(/^.*[/\\]/, "").replace(/\.exe$/, "");
}

/** through appends a script for the remote shell: ssh takes one string, others `sh -c`. */
function through(cmd, script) {
  if (basename(cmd[0]) === "ssh") return cmd.concat([script]);
  return cmd.concat(["sh", "-c", script]);
}

/** bridgeCommand is {command, args} starting the bridge on the remote side. */
function bridgeCommand(rc, extraArgs) {
  const words = [BRIDGE, "serve", "--stdio"];
  for (const m of rc.pathMap) words.push("--path-map", m);
  words.push(...(extraArgs || []));
  const argv = through(rc.cmd, "exec " + words.map(shellQuote).join(" "));
  // A Process needs a path: look a bare name (ssh, docker) up on PATH with env.
  if (!argv[0].startsWith("/")) return { command: "/usr/bin/env", args: argv };
  return { command: argv[0], args: argv.slice(1) };
}

/** toRemote translates a LOCAL folder (longest prefix), or returns null. */
function toRemote(rc, p) {
  let best = null;
  let out = null;
  for (const m of rc.pathMap) {
    const i = m.indexOf("=");
    const local = m.slice(0, i).replace(/\/+$/, "");
    const remote = m.slice(i + 1).replace(/\/+$/, "");
    if (p === local || p.startsWith(local + "/")) {
      if (best === null || local.length > best.length) {
        best = local;
        out = remote + p.slice(local.length);
      }
    }
  }
  if (rc.pathMap.length === 0) return p;
  return out === null ? null : out || "/";
}

/** terminalCommand is the shell line that runs argv (claudeCommand's) on the remote side with env, in dir. */
function terminalCommand(rc, env, dir, argv) {
  const cmd = rc.cmd.slice();
  const name = basename(cmd[0]);
  if (name === "ssh") cmd.splice(1, 0, "-t");
  else if ((name === "docker" || name === "podman") && cmd[1] === "exec") cmd.splice(2, 0, "-t");
  const assigns = Object.keys(env || {})
    .sort()
    .filter((k) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
    .map((k) => shellQuote(`${k}=${env[k]}`));
  const script = `cd ${shellQuote(dir)} && exec env ${assigns.join(" ")} ${argv.map(shellQuote).join(" ")}`;
  return through(cmd, script).map(shellQuote).join(" ");
}

module.exports = { config, bridgeCommand, toRemote, terminalCommand, shellQuote };
