-- Remote mode: the bridge and Claude run on another machine (a host over SSH,
-- a dev container, WSL) while Neovim runs here. The bridge is started through
-- a command that carries stdio (`ssh host`, `docker exec -i box`, `wsl.exe`),
-- so the lock file, its pid and the loopback socket are all on Claude's side;
-- the bridge translates paths (`serve --stdio --path-map LOCAL=REMOTE`).
-- :ClaudeCode starts claude through the same command, with a terminal, in the
-- REMOTE folder of Neovim's cwd and with the bridge's environment.
--
-- Option (see :help claude-ide-bridge-remote):
--   remote = {
--     cmd = { "ssh", "build-box" },                 -- carries stdio to the other side
--     path_map = { ["/Users/me/app"] = "/srv/app" }, -- LOCAL = REMOTE
--     bin = "claude-ide-bridge",                     -- the bridge there
--     terminal_cmd = nil,  -- default: cmd with a tty (ssh -t, docker/podman exec -t)
--     shell = nil,         -- nil: true for ssh (its arguments are one shell string)
--   }
local M = {}

local function opts()
  local r = require("claude-ide-bridge.config").options.remote
  return (type(r) == "table" and type(r.cmd) == "table" and #r.cmd > 0) and r or nil
end

--- Whether remote mode is configured.
function M.enabled()
  return opts() ~= nil
end

--- Quotes s for a POSIX shell.
function M.shellescape(s)
  return "'" .. tostring(s):gsub("'", [['\'']]) .. "'"
end

local function basename(p)
  return (tostring(p):gsub("^.*[/\\]", ""):gsub("%.exe$", ""))
end

-- Whether the command's arguments reach the other side as one shell string
-- (ssh joins them with spaces for the remote shell).
local function shell_mode(r)
  if r.shell ~= nil then
    return r.shell and true or false
  end
  return basename(r.cmd[1]) == "ssh"
end

-- cmd, then script run by a POSIX shell on the other side.
local function through(cmd, r, script)
  local argv = vim.deepcopy(cmd)
  if shell_mode(r) then
    argv[#argv + 1] = script
  else
    vim.list_extend(argv, { "sh", "-c", script })
  end
  return argv
end

--- The path_map entries as --path-map arguments, longest LOCAL first (stable).
function M.path_map_args(r)
  r = r or opts() or {}
  local keys = vim.tbl_keys(r.path_map or {})
  table.sort(keys, function(a, b)
    if #a ~= #b then
      return #a > #b
    end
    return a < b
  end)
  local args = {}
  for _, l in ipairs(keys) do
    args[#args + 1] = "--path-map"
    args[#args + 1] = l .. "=" .. r.path_map[l]
  end
  return args
end

--- The command that starts the bridge on the other side.
function M.bridge_cmd()
  local r = assert(opts(), "remote is not configured")
  local words = { r.bin or "claude-ide-bridge", "serve", "--stdio" }
  vim.list_extend(words, M.path_map_args(r))
  local script = "exec " .. table.concat(vim.tbl_map(M.shellescape, words), " ")
  return through(r.cmd, r, script)
end

-- Separator-boundary prefix test (a/b holds a/b/c, not a/bc).
local function under(p, prefix)
  prefix = prefix:gsub("/+$", "")
  if p == prefix then
    return ""
  end
  if prefix == "" then
    return p
  end
  if p:sub(1, #prefix + 1) == prefix .. "/" then
    return p:sub(#prefix + 1)
  end
  return nil
end

--- The REMOTE path of a LOCAL one (longest prefix), or nil and why.
--- Only for the terminal's folder: the bridge translates everything else.
function M.to_remote(p)
  local r = opts() or {}
  local best, out
  for l, rem in pairs(r.path_map or {}) do
    local rest = under(p, l)
    if rest and (not best or #l > #best) then
      best, out = l, rem:gsub("/+$", "") .. rest
    end
  end
  if next(r.path_map or {}) == nil then
    return p -- no map: the same paths on both sides
  end
  if not out then
    return nil, ("%s is outside remote.path_map"):format(p)
  end
  return out ~= "" and out or "/"
end

-- The terminal command: cmd with a tty for the CLI's TUI.
local function tty_cmd(r)
  if r.terminal_cmd then
    return vim.deepcopy(r.terminal_cmd)
  end
  local cmd = vim.deepcopy(r.cmd)
  local name = basename(cmd[1])
  if name == "ssh" then
    table.insert(cmd, 2, "-t")
  elseif (name == "docker" or name == "podman") and cmd[2] == "exec" then
    table.insert(cmd, 3, "-t")
  end
  return cmd
end

--- The command that runs claude (claude_cmd: a string for the remote shell,
--- or a list) in the REMOTE folder dir with env, through the remote command.
function M.terminal_cmd(claude_cmd, env, dir)
  local r = assert(opts(), "remote is not configured")
  local keys = vim.tbl_keys(env or {})
  table.sort(keys)
  local assigns = {}
  for _, k in ipairs(keys) do
    if k:match("^[%a_][%w_]*$") then
      assigns[#assigns + 1] = M.shellescape(k .. "=" .. tostring(env[k]))
    end
  end
  local run = type(claude_cmd) == "table" and table.concat(vim.tbl_map(M.shellescape, claude_cmd), " ") or claude_cmd
  local script = ("cd %s && exec env %s %s"):format(M.shellescape(dir), table.concat(assigns, " "), run)
  return through(tty_cmd(r), r, script)
end

--- A line of a remote process's stderr made safe to show: control
--- characters (terminal escapes) become visible (^[), length bounded.
function M.safe(line)
  local s = vim.fn.strtrans(tostring(line or ""))
  if #s > 300 then
    s = s:sub(1, 300) .. "..."
  end
  return s
end

--- The message when the remote command ended: its status, the tail of its
--- stderr (escaped), what happened to the diffs, how to come back.
function M.exit_message(code, stderr, was_ready)
  local tail = {}
  for i = math.max(1, #stderr - 2), #stderr do
    tail[#tail + 1] = M.safe(stderr[i])
  end
  local msg = ("the remote bridge (%s) ended with status %s"):format(
    M.safe(table.concat(opts() and opts().cmd or {}, " ")), tostring(code))
  if #tail > 0 then
    msg = msg .. ": " .. table.concat(tail, " | ")
  end
  if was_ready then
    msg = msg .. ". Its diffs were closed unaccepted (nothing was written); Claude was disconnected"
  end
  return msg .. ". :ClaudeCodeStart starts it again."
end

return M
