-- claude-ide-bridge for Neovim: runs `claude-ide-bridge serve --stdio` and
-- answers it. The bridge owns everything Claude-facing (WebSocket, lock file,
-- MCP, diff state); this plugin reports editor facts and performs UI actions.
local config = require("claude-ide-bridge.config")
local diff = require("claude-ide-bridge.diff")
local events = require("claude-ide-bridge.events")
local handlers = require("claude-ide-bridge.handlers")
local remote = require("claude-ide-bridge.remote")
local rpc = require("claude-ide-bridge.rpc")
local state = require("claude-ide-bridge.state")
local terminal = require("claude-ide-bridge.terminal")
local tracker = require("claude-ide-bridge.tracker")

--- The public API: require("claude-ide-bridge").
---@class claude-ide-bridge
local M = {}

--- The bridge's answer to initialize (docs/editor-protocol.md), passed to start()'s callback.
---@class claude-ide-bridge.Info
---@field port integer the WebSocket port Claude connects to
---@field lockPath string the lock file the CLI reads
---@field mcpConfig? string the 0600 --mcp-config file of the code tools
---@field env? table<string, string> variables for a claude started against it

-- The bridge connection (state.lua): read here, changed through state's functions.
local S = state.bridge

local augroup = vim.api.nvim_create_augroup("ClaudeIdeBridge", { clear = true })

local function notify(msg, level)
  require("claude-ide-bridge.notice").show(msg, level or vim.log.levels.INFO)
end

--- The bridge binary: the `bin` option, else claude-ide-bridge on $PATH
--- (outside the workspace: exe.lua), else the copy :ClaudeCodeInstall put
--- under stdpath("data"); nil if none.
---@return string|nil
function M.bin()
  local bin = config.options.bin
  if bin and bin ~= "" then
    return vim.fn.expand(bin)
  end
  local found = require("claude-ide-bridge.exe").find("claude-ide-bridge", { vim.fn.getcwd(-1, -1) })
  if found then
    return found
  end
  local installed = require("claude-ide-bridge.install").path()
  if vim.fn.executable(installed) == 1 then
    return installed
  end
  return nil
end

local function workspace_folders()
  local cwd = vim.fn.getcwd(-1, -1)
  return { (vim.uv or vim.loop).fs_realpath(cwd) or cwd }
end

local request = state.request

local function bridge_handlers()
  local h = {}
  for name, fn in pairs(handlers) do
    h[name] = function(params, reply)
      fn(params, reply)
    end
  end
  h.clientConnected = function(p)
    local n = state.set_clients(p.clients)
    vim.schedule(function()
      events.emit("ClaudeCodeConnected", { clients = n })
    end)
  end
  h.clientPid = function(p)
    if type(p.clientId) == "number" and type(p.pid) == "number" then
      state.sessions.pids[p.clientId] = p.pid
    end
  end
  h.clientDisconnected = function(p)
    if type(p.clientId) == "number" then
      state.sessions.pids[p.clientId] = nil
      state.claude.skipped[p.clientId] = nil
    end
    local n = state.set_clients(p.clients)
    vim.schedule(function()
      events.emit("ClaudeCodeDisconnected", { clients = n })
    end)
  end
  h.claudeState = function(p)
    vim.schedule(function()
      require("claude-ide-bridge.review").on_state(p)
    end)
  end
  -- A Claude wrote an Edit/Write without a diff (its mode skips them): say so
  -- once, and :checkhealth stops claiming diffs while it is connected.
  h.diffsSkipped = function(p)
    if type(p.message) ~= "string" then
      return
    end
    if type(p.clientId) == "number" then
      state.claude.skipped[p.clientId] = p.message
    end
    vim.schedule(function()
      notify(p.message, vim.log.levels.WARN)
    end)
  end
  h.askPermission = require("claude-ide-bridge.permission").ask
  h.permissionWithdrawn = require("claude-ide-bridge.permission").withdrawn
  h.turnEnded = function(p)
    vim.schedule(function()
      require("claude-ide-bridge.review").on_turn_ended(p)
    end)
  end
  return h
end

local function on_ready(err, result)
  if err or type(result) ~= "table" then
    notify("bridge did not initialize: " .. tostring(err and err.message), vim.log.levels.ERROR)
    if S.client then
      S.client:stop()
    end
    return
  end
  local waiting = state.bridge_ready(result)
  if state.sharing.paused then
    -- Paused before this bridge started (or it restarted): it starts paused too.
    S.client:request("setSharing", { paused = true }, function() end)
  end
  if config.options.track_selection then
    tracker.start(function(sel)
      -- Paused: nothing leaves Neovim (the bridge would drop it too).
      if S.client and not state.sharing.paused then
        S.client:notify("selectionChanged", sel)
      end
    end, config.options.selection_debounce_ms)
  end
  for _, cb in ipairs(waiting) do
    cb(result)
  end
end

--- A bridge that dies without cleaning up (SIGKILL, a crash) leaves its lock, which names this
--- editor's live pid: Claude would keep trusting it, and another local user could take over the
--- freed port (docs/security.md). Removes the lock at path if it still names this editor.
--- Remote mode has nothing to remove here: that lock is on the other machine and names the
--- bridge's own (now dead) pid.
---@param path string|nil the lockPath from initialize
local function remove_own_lock(path)
  if type(path) ~= "string" or path == "" then
    return
  end
  local f = io.open(path, "r")
  if not f then
    return
  end
  local raw = f:read("*a")
  f:close()
  local ok, lock = pcall(vim.fn.json_decode, raw)
  if ok and type(lock) == "table" and lock.pid == vim.fn.getpid() then
    os.remove(path)
  end
end

--- Starts the bridge (if it is not running); cb(info) runs once it is ready
--- (at once when it already is). Returns false when it cannot start (no
--- binary, jobstart failed: an ERROR notification says why; cb never runs).
---@param cb? fun(info: claude-ide-bridge.Info)
---@return boolean started
function M.start(cb)
  if S.info and S.client and S.client:running() then
    if cb then
      cb(S.info)
    end
    return true
  end
  if cb then
    state.bridge_wait(cb)
  end
  if S.client and S.client:running() then
    return true
  end
  local bin = remote.enabled() and "remote" or M.bin()
  if not bin then
    notify("the claude-ide-bridge binary is not installed: run :ClaudeCodeInstall (or set the `bin` option, or put it on PATH)", vim.log.levels.ERROR)
    state.bridge_failed()
    return false
  end
  local client = rpc.new(bridge_handlers())
  local cmd = remote.enabled() and remote.bridge_cmd() or { bin, "serve", "--stdio" }
  local _, err = client:start(cmd, function(code)
    vim.schedule(function()
      if S.client ~= client then
        return
      end
      local info, stopping = state.bridge_exited(code)
      local was_ready = info ~= nil
      if was_ready and not remote.enabled() then
        remove_own_lock(info.lockPath)
      end
      tracker.stop()
      tracker.watch_windows()
      diff.close_all_views()
      if remote.enabled() and not stopping then
        -- The remote command died (ssh dropped, container restarted): say why.
        notify(remote.exit_message(code, client.stderr, was_ready), vim.log.levels.ERROR)
      elseif code ~= 0 and not stopping then
        local tail = client.stderr[#client.stderr] or ""
        notify(("bridge exited with status %d%s"):format(code, tail ~= "" and (": " .. tail) or ""),
          was_ready and vim.log.levels.WARN or vim.log.levels.ERROR)
      end
    end)
  end)
  if err then
    notify(err, vim.log.levels.ERROR)
    state.bridge_failed()
    return false
  end
  state.bridge_started(client)
  client:request("initialize", {
    name = config.ide_name(),
    -- Remote: the editor's pid means nothing there; the lock gets the bridge's.
    pid = not remote.enabled() and vim.fn.getpid() or nil,
    workspaceFolders = workspace_folders(),
    positionEncoding = "utf-8",
    trackSelection = config.options.track_selection,
    -- nil: the bridge's default globs.
    exclude = config.options.exclude,
    capabilities = {
      openFile = true, showDiff = true, canCloseTabs = true, getOpenEditors = true,
      getCurrentSelection = true, checkDocumentDirty = true, saveDocument = true,
      getDiagnostics = true, executeCode = false, setBufferText = true, diffText = true,
      lspRequest = true,
      askPermission = config.options.permissions ~= false,
    },
  }, function(e, result)
    vim.schedule(function()
      on_ready(e, result)
    end)
  end)
  return true
end

--- Stops the bridge for real: it settles pending diffs (never as accepted),
--- removes its lock file and exits, also while Claude is connected and when
--- this Neovim attached to a bridge another one started. With `leaving`
--- (Neovim quits and no Claude runs inside it), the bridge is only told that
--- Neovim goes: it stays while a Claude is connected, and the next Neovim in
--- this workspace attaches to it (:help claude-ide-bridge-outlive).
---@param leaving? boolean
function M.stop(leaving)
  tracker.stop()
  tracker.watch_windows()
  diff.close_all_views()
  local client = S.client
  local ready = S.info ~= nil
  state.bridge_stopping()
  if client then
    if ready and not leaving then
      pcall(client.notify, client, "shutdown", vim.empty_dict())
    end
    client:stop()
  end
end

-- Whether a claude runs in this Neovim's own terminal (native or snacks): it
-- ends with Neovim, so the bridge need not outlive it.
local function claude_inside()
  if terminal.running() then
    return true
  end
  local ok, snacks = pcall(require, "claude-ide-bridge.providers.snacks")
  return ok and snacks.running() or false
end

-- The params of claudeCommand (docs/editor-protocol.md) for terminal_cmd with
-- args: the options the bridge's rule reads. A string terminal_cmd is split
-- on blanks, enough for the bridge to see a permission flag in it and find
-- its program. In remote mode the program is the remote's: not looked up here.
local function command_params(args)
  local tc = config.options.terminal_cmd
  local words = type(tc) == "table" and tc or vim.split(tc, "%s+", { trimempty = true })
  local p = { command = words, modelTools = config.options.model_tools ~= false, remote = remote.enabled() }
  if args and #args > 0 then
    p.args = args
  end
  if config.options.permission_mode ~= nil then
    p.permissionMode = config.options.permission_mode
  end
  return p, words
end

local mode_told = false

-- Calls done(cmd, env) with the command that runs claude, as the bridge
-- composes it (claudeCommand: the permission flag, its hooks, --mcp-config);
-- its notice (edits skip diffs) is shown once. claude is the program the
-- bridge found (argv[1]: never the workspace's, docs/security.md section 15);
-- a string terminal_cmd stays a shell line with argv[1] for its first word;
-- in remote mode it runs through the remote command in the REMOTE folder of
-- Neovim's cwd.
local function with_command(args, done)
  local params, words = command_params(args)
  request("claudeCommand", params, function(err, c)
    vim.schedule(function()
      if err or type(c) ~= "table" or type(c.argv) ~= "table" then
        return notify("claude's command line: " .. tostring(err and err.message), vim.log.levels.ERROR)
      end
      if type(c.notice) == "string" and not mode_told then
        mode_told = true
        notify(c.notice .. ". :help claude-ide-bridge-permission-mode", vim.log.levels.WARN)
      end
      local cmd = c.argv
      local tc = config.options.terminal_cmd
      if type(tc) == "string" then
        if words[1] and c.argv[1] ~= words[1] then
          local prog = vim.fn.shellescape(c.argv[1])
          tc = tc:gsub("^%s*%S+", function()
            return prog
          end, 1)
        end
        cmd = terminal.command(tc, vim.list_slice(c.argv, #words + 1))
      end
      if remote.enabled() then
        local dir, why = remote.to_remote(workspace_folders()[1])
        if not dir then
          return notify(why, vim.log.levels.ERROR)
        end
        cmd = remote.terminal_cmd(cmd, c.env, dir)
      end
      done(cmd, c.env)
    end)
  end)
end

--- :ClaudeCode [args]: hides claude when its window is the current one, else
--- shows and focuses it, starting `terminal_cmd args` when it is not running.
---@param args? string[] extra CLI arguments, e.g. { "--resume" }
function M.toggle(args)
  M.start(function()
    with_command(args, function(cmd, env)
      terminal.toggle(cmd, env, config.options.terminal, args)
    end)
  end)
end

--- :ClaudeCodeFocus [args]: shows and focuses claude (starting it when needed).
---@param args? string[]
function M.open_terminal(args)
  M.start(function()
    with_command(args, function(cmd, env)
      terminal.open(cmd, env, config.options.terminal, args)
    end)
  end)
end

--- :ClaudeCodeClose: stops the claude the plugin started.
function M.close_terminal()
  terminal.close(config.options.terminal)
end

--- Sends an at-mention: lines are 0-based and inclusive; nil for the whole
--- file. Starts the bridge when needed; errors are notified, never raised.
---@param path string absolute path of a file or folder
---@param line_start? integer first line, 0-based
---@param line_end? integer last line, 0-based, inclusive (default line_start)
function M.at_mention(path, line_start, line_end)
  local params = { filePath = path }
  if line_start then
    params.lineStart = line_start
    params.lineEnd = line_end or line_start
  end
  M.start(function()
    request("atMentioned", params, function(err, result)
      vim.schedule(function()
        if err then
          notify("could not send " .. path .. ": " .. tostring(err.message), vim.log.levels.ERROR)
        elseif type(result) == "table" and result.held then
          notify("no Claude is connected yet; the mention is held for it")
        end
      end)
    end)
  end)
end

--- :ClaudeCodeCloseAllDiffs.
function M.close_all_diffs()
  request("closeAllDiffs", vim.empty_dict(), function(err, result)
    vim.schedule(function()
      if err then
        notify("close all diffs: " .. tostring(err.message), vim.log.levels.ERROR)
        return
      end
      local restored = type(result) == "table" and type(result.restored) == "table" and result.restored or {}
      local msg = ("closed %d diff(s)"):format(type(result) == "table" and tonumber(result.closed) or 0)
      if #restored > 0 then
        msg = msg .. "; accepted text left unsaved in " .. table.concat(restored, ", ")
      end
      notify(msg)
    end)
  end)
end

--- How :ClaudeCode would start claude, as the bridge composes it (nil, why
--- when it cannot tell): { argv, env, display, permissionMode, why, notice }.
--- Waits up to timeout_ms (default 2000) for the answer.
---@param timeout_ms? integer
---@return table|nil, string|nil
function M.claude_command(timeout_ms)
  local done, res, why = false, nil, nil
  request("claudeCommand", (command_params()), function(err, r)
    res, why, done = (not err and type(r) == "table") and r or nil, err and tostring(err.message), true
  end)
  vim.wait(timeout_ms or 2000, function()
    return done
  end, 10)
  if not done then
    return nil, "the bridge did not answer"
  end
  return res, why
end

---@class claude-ide-bridge.Snapshot
---@field running boolean the bridge process runs
---@field bridge_pid integer|nil its pid
---@field ready boolean it answered initialize
---@field port integer|nil
---@field lockPath string|nil
---@field mcpConfig string|nil
---@field clients integer Claude clients connected
---@field diffs { tab_name: string, file_path: string, state: string }[] diff views shown
---@field terminal boolean the native terminal's claude runs
---@field exit_code integer|nil how the last bridge ended
---@field stderr string[] the bridge's last stderr lines

--- A copy of the plugin's state (state.lua) for :checkhealth and tests.
---@return claude-ide-bridge.Snapshot
function M.state()
  return {
    running = S.client ~= nil and S.client:running(),
    bridge_pid = S.client and S.client.job and vim.fn.jobpid(S.client.job) or nil,
    ready = S.info ~= nil,
    port = S.info and S.info.port,
    lockPath = S.info and S.info.lockPath,
    attached = S.info ~= nil and S.info.attached == true,
    mcpConfig = S.info and S.info.mcpConfig,
    clients = S.clients,
    diffs = diff.list(),
    terminal = terminal.running(),
    exit_code = S.exit_code,
    stderr = S.client and S.client.stderr or S.last_stderr or {},
  }
end

---@class claude-ide-bridge.Status
---@field running boolean the bridge is up and has answered initialize
---@field port integer|nil its WebSocket port
---@field clients integer Claude clients connected
---@field pending_diffs integer diffs waiting for the user's decision
---@field attached boolean this Neovim attached to a bridge that outlived another Neovim (false: it started the bridge)
---@field claude "waiting"|"working"|"idle"|nil the most pressing state of the Claude sessions (nil: none known)
---@field claude_sessions { id: string, state: string, reason: string|nil }[] each Claude session (the CLI's session id) started with the bridge's hooks, its state
---@field paused boolean sharing is paused (:ClaudeCodePause): no selection, open files or diagnostics reach Claude
---@field sessions { name: string, tab: integer|nil, running: boolean, diffs: integer }[] the native terminal's Claude sessions
---@field permissions integer Claude's permission questions waiting for an answer here (:ClaudeCodePermissions)

--- For statuslines: cheap, no request to the bridge.
---@return claude-ide-bridge.Status
function M.status()
  local pending = 0
  for _, d in ipairs(diff.list()) do
    if d.state == "pending" then
      pending = pending + 1
    end
  end
  local ready = S.info ~= nil and S.client ~= nil and S.client:running()
  local claude_sessions, claude = {}, nil
  local rank = { waiting = 3, working = 2, idle = 1 }
  for id, st in pairs(ready and state.claude.sessions or {}) do
    claude_sessions[#claude_sessions + 1] = { id = id, state = st.state, reason = st.reason }
    if not claude or (rank[st.state] or 0) > (rank[claude] or 0) then
      claude = st.state
    end
  end
  table.sort(claude_sessions, function(a, b)
    return a.id < b.id
  end)
  return {
    running = ready,
    port = ready and tonumber(S.info.port) or nil,
    clients = ready and S.clients or 0,
    pending_diffs = pending,
    attached = ready and S.info.attached == true,
    paused = state.sharing.paused,
    sessions = M.sessions(),
    claude = claude,
    claude_sessions = claude_sessions,
    permissions = ready and #require("claude-ide-bridge.permission").list() or 0,
  }
end

--- The native terminal's Claude sessions: name ("default", "tab 2", or a
--- :ClaudeCodeSession name), the tab page number it was started in, whether
--- claude runs, and how many of the diffs shown are its Claude's.
---@return { name: string, tab: integer|nil, running: boolean, diffs: integer }[]
function M.sessions()
  local out = {}
  local list = diff.list()
  for _, s in ipairs(terminal.sessions()) do
    local n = 0
    for _, d in ipairs(list) do
      if d.session == s.key then
        n = n + 1
      end
    end
    out[#out + 1] = {
      name = s.name,
      tab = s.tab and vim.api.nvim_tabpage_is_valid(s.tab) and vim.api.nvim_tabpage_get_number(s.tab) or nil,
      running = s.job ~= nil,
      diffs = n,
    }
  end
  return out
end

--- :ClaudeCodeSession {name} [args]: this tab page's Claude becomes the
--- session called name (started when needed), shown and focused.
---@param name string
---@param args? string[]
function M.session(name, args)
  vim.t.claude_ide_bridge_session = name
  M.open_terminal(args)
end

--- :ClaudeCodePause / :ClaudeCodeResume: stops (or restarts) sharing the
--- selection, the open files and the diagnostics with Claude; @-mentions you
--- send still go. Kept across bridge restarts; status().paused shows it.
---@param paused boolean
function M.set_paused(paused)
  state.sharing.paused = paused
  local done = function()
    notify(paused and "sharing paused: Claude gets no selection, open files or diagnostics (:ClaudeCodeResume)"
      or "sharing resumed")
  end
  if not state.ready_client() then
    return done()
  end
  request("setSharing", { paused = paused }, function(err)
    vim.schedule(function()
      if err then
        return notify("could not " .. (paused and "pause" or "resume") .. " sharing: " .. tostring(err.message), vim.log.levels.ERROR)
      end
      done()
    end)
  end)
end

--- :ClaudeCodeStatus: asks the bridge and shows its answer.
function M.show_status()
  if not (S.client and S.info) then
    notify(S.client and "bridge is starting" or "bridge is not running (:ClaudeCodeStart starts it)")
    return
  end
  request("status", vim.empty_dict(), function(err, r)
    vim.schedule(function()
      if err then
        notify("status: " .. tostring(err.message), vim.log.levels.ERROR)
        return
      end
      local lines = {
        ("port %s, %d Claude client(s), lock %s, %s"):format(tostring(r.port), tonumber(r.clients) or 0, tostring(r.lockPath),
          S.info and S.info.attached and "attached (the bridge outlived an earlier Neovim)" or "started by this Neovim"),
      }
      if type(r.sharing) == "table" then
        lines[#lines + 1] = (r.sharing.paused and "sharing paused (:ClaudeCodeResume)" or "sharing on")
          .. "; never shared: " .. table.concat(type(r.sharing.exclude) == "table" and r.sharing.exclude or {}, " ")
      end
      for _, d in ipairs(type(r.diffs) == "table" and r.diffs or {}) do
        lines[#lines + 1] = ("diff %s (%s): %s"):format(tostring(d.tabName), tostring(d.filePath), tostring(d.state))
      end
      for _, c in ipairs(M.status().claude_sessions) do
        lines[#lines + 1] = ("Claude %s: %s%s"):format(c.id:sub(1, 8), tostring(c.state), c.reason and c.reason ~= "" and (" (" .. c.reason .. ")") or "")
      end
      notify(table.concat(lines, "\n"))
    end)
  end)
end

--- Sets the options and starts the bridge unless auto_start is false.
--- lazy.nvim calls it with `opts`. Options are checked with vim.validate: an
--- unknown or bad one is reported in one ERROR notification naming each, and
--- its default is used (config.set says when the bridge is not started).
--- Never raises for bad options.
---@param opts? claude-ide-bridge.Config
function M.setup(opts)
  local _, problems = config.set(opts)
  if #problems > 0 then
    local lines = {}
    for i, p in ipairs(problems) do
      lines[i] = p:find("^setup%(%)") and p or ("option " .. p)
    end
    lines[#lines + 1] = "(ignored: the defaults apply; :help claude-ide-bridge-options)"
    notify(table.concat(lines, "\n"), vim.log.levels.ERROR)
  end
  require("claude-ide-bridge.commands").create()
  if config.options.tabline then
    require("claude-ide-bridge.tabline").install()
  end
  tracker.watch_windows()
  -- Buffers follow the disk (Claude's writes): see watch.lua.
  require("claude-ide-bridge.watch").start()
  -- Your saves are yours, not Claude's, in the record of turns (review.lua).
  require("claude-ide-bridge.review").watch_writes()
  vim.api.nvim_clear_autocmds({ group = augroup })
  vim.api.nvim_create_autocmd("DirChanged", {
    group = augroup,
    callback = function()
      local client = state.ready_client()
      if client then
        client:notify("workspaceFoldersChanged", { folders = workspace_folders() })
      end
    end,
  })
  -- A closed file's selection is never sent later (to a session that connects after).
  vim.api.nvim_create_autocmd("BufUnload", {
    group = augroup,
    callback = function(a)
      local client = state.ready_client()
      local name = vim.api.nvim_buf_get_name(a.buf)
      if client and name ~= "" and vim.bo[a.buf].buftype == "" then
        client:notify("fileClosed", { filePath = name })
      end
    end,
  })
  vim.api.nvim_create_autocmd("VimLeavePre", {
    group = augroup,
    callback = function()
      -- A Claude outside Neovim (tmux, external, one started by hand) keeps
      -- its IDE: the bridge outlives Neovim for it. One inside ends with us.
      M.stop(not claude_inside())
    end,
  })
  if config.options.auto_start then
    M.start()
  end
end

return M
