-- The bridge process (`claude-ide-bridge serve --stdio`, or its remote
-- command) and the requests the editor sends it. The bridge owns everything
-- Claude-facing (WebSocket, lock file, MCP, diff state); this plugin reports
-- editor facts and performs UI actions (handlers.lua answers its requests).
local config = require("claude-ide-bridge.config")
local diff = require("claude-ide-bridge.diff")
local events = require("claude-ide-bridge.events")
local handlers = require("claude-ide-bridge.handlers")
local permission = require("claude-ide-bridge.permission")
local remote = require("claude-ide-bridge.remote")
local review = require("claude-ide-bridge.review")
local rpc = require("claude-ide-bridge.rpc")
local state = require("claude-ide-bridge.state")
local tracker = require("claude-ide-bridge.tracker")

local M = {}

--- The bridge's answer to initialize (docs/editor-protocol.md), passed to start()'s callback.
---@class claude-ide-bridge.Info
---@field port integer the WebSocket port Claude connects to
---@field lockPath string the lock file the CLI reads
---@field mcpConfig? string the 0600 --mcp-config file of the code tools
---@field env? table<string, string> variables for a claude started against it

-- The bridge connection (state.lua): read here, changed through state's functions.
local S = state.bridge

local notice = require("claude-ide-bridge.notice")
local notify = notice.show

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

--- The workspace folders the bridge is told of: Neovim's global cwd, resolved.
---@return string[]
function M.workspace_folders()
  local cwd = vim.fn.getcwd(-1, -1)
  return { (vim.uv or vim.loop).fs_realpath(cwd) or cwd }
end

local function bridge_handlers()
  local h = {}
  for name, fn in pairs(handlers) do
    h[name] = fn
  end
  h.clientConnected = function(p)
    local n, agents = state.set_clients(p.clients, p.agents)
    vim.schedule(function()
      events.emit("ClaudeCodeConnected", { clients = n, agent = p.agent or "claude", agents = agents })
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
    local n, agents = state.set_clients(p.clients, p.agents)
    vim.schedule(function()
      events.emit("ClaudeCodeDisconnected", { clients = n, agent = p.agent or "claude", agents = agents })
    end)
  end
  h.claudeState = function(p)
    vim.schedule(function()
      review.on_state(p)
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
  h.askPermission = permission.ask
  h.permissionWithdrawn = permission.withdrawn
  h.turnEnded = function(p)
    vim.schedule(function()
      review.on_turn_ended(p)
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
    workspaceFolders = M.workspace_folders(),
    positionEncoding = "utf-8",
    trackSelection = config.options.track_selection,
    -- nil: the bridge's default globs.
    exclude = config.options.exclude,
    codexIde = config.options.codex_ide,
    capabilities = {
      openFile = true, showDiff = true, canCloseTabs = true, getOpenEditors = true,
      getCurrentSelection = true, checkDocumentDirty = true, saveDocument = true,
      getDiagnostics = true, executeCode = false, setBufferText = true, diffText = true,
      lspRequest = true,
      askPermission = config.ask_permission(),
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
    state.request("atMentioned", params, notice.on_answer("could not send " .. path, function(result)
      if type(result) == "table" and result.held then
        notify("no Claude is connected yet; the mention is held for it")
      end
    end))
  end)
end

--- :ClaudeCodeCloseAllDiffs.
function M.close_all_diffs()
  state.request("closeAllDiffs", vim.empty_dict(), notice.on_answer("close all diffs", function(result)
    local restored = type(result) == "table" and type(result.restored) == "table" and result.restored or {}
    local msg = ("closed %d diff(s)"):format(type(result) == "table" and tonumber(result.closed) or 0)
    if #restored > 0 then
      msg = msg .. "; accepted text left unsaved in " .. table.concat(restored, ", ")
    end
    notify(msg)
  end))
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
  state.request("setSharing", { paused = paused }, notice.on_answer("could not " .. (paused and "pause" or "resume") .. " sharing", done))
end

return M
