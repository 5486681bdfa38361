-- The plugin's mutable state, all of it, in one place.
--
-- Every module that remembers something between calls keeps it here rather
-- than in fields of its own module table or in locals captured by closures:
-- one place to look when asking "what does the plugin know right now?", and
-- no setters wiring modules together (diff.lua used to receive its request
-- function from init.lua). The bridge connection, the part several modules
-- read, changes only through the functions below (the same idea as a
-- JSON-RPC connection's state kept in one struct and changed in one place).
--
-- Concurrency: Neovim runs Lua on one thread; libuv callbacks that touch
-- state do it through vim.schedule (tracker, watch), so nothing here needs
-- a lock. Nothing here does I/O or raises.
local M = {}

---@class claude-ide-bridge.BridgeState
---@field client table|nil the rpc client (rpc.lua) of the bridge process, nil when none runs
---@field info table|nil the bridge's initialize result; nil until it is ready
---@field waiting fun(info: table)[] callbacks waiting for the bridge to be ready
---@field clients integer clients connected, every agent (clientConnected/clientDisconnected)
---@field agents table<string, integer> the same by CLI ("claude", "gemini", "qwen"), as the bridge counts them
---@field exit_code integer|nil how the last bridge process ended
---@field stopping boolean stop() was asked: its exit is expected, not an error
---@field last_stderr string[]|nil the stderr lines of the last bridge process

---@type claude-ide-bridge.BridgeState
M.bridge = { client = nil, info = nil, waiting = {}, clients = 0, agents = {}, exit_code = nil, stopping = false, last_stderr = nil }

--- The options in force (config.lua sets them, validated). Replaced as a
--- whole by config.set(); read it at call time, never cache it.
---@type claude-ide-bridge.Config
M.options = nil

--- What the last setup() ignored in its options (config.set), for :checkhealth.
---@type string[]
M.option_problems = {}

--- Diff views shown, by tabName (diff.lua): {tab_name, file_path, orig_buf,
--- prop_buf, wins, state, closing}.
---@type table<string, table>
M.diffs = {}

--- The user's 'diffopt' while a big diff's cheaper one is set (diff.lua):
--- saved is the user's value, ours the one the plugin set; opening is true
--- while a diff's tab page is being built (TabEnter waits for it).
M.diffopt = { saved = nil, ours = nil, opening = false }

--- Selection tracking (tracker.lua).
M.tracker = {
  timer = nil, -- the debounce timer (libuv), nil when stopped
  last = nil, -- JSON of the last selection sent
  last_win = nil, -- last window that showed a file
  send = nil, -- function(selection) while tracking, else nil
  delay = 50, -- debounce in ms
  flushes = 0, -- debounce timers that fired
  sent = 0, -- selections sent
}

--- Claude sessions' states from the bridge's claudeState notifications (its
--- hooks): by session id, { state = "working"|"waiting"|"idle", reason, since }.
--- turn is the summary of the last turn that changed files (turnEnded).
--- skipped: by client id, the bridge's diffsSkipped message for a connected
--- Claude that writes its edits without diffs.
M.claude = { sessions = {}, turn = nil, skipped = {} }

--- Claude's permission prompts (permission.lua): pending by request id, each
--- { id, session, tool, text, always, win }.
M.permissions = { pending = {} }

--- Files opened by :ClaudeCodeReview (review.lua), by buffer number of the
--- file: { path, before_buf }; their writes are told to the bridge as the
--- user's (userWrote).
M.review = { files = {} }

--- The CLI's terminal: the native provider's buffer and job (terminal.lua),
--- the external provider's job, the snacks provider's snacks.win.
M.terminal = { buf = nil, job = nil, external_job = nil, snacks_win = nil }

--- Buffers following the disk (watch.lua): folder watches by path, watched
--- buffers by number, whether watching is on and its augroup.
M.watch = { dirs = {}, bufs = {}, enabled = false, augroup = nil }

--- Claude sessions of the native terminal (terminal.lua): by key ("default",
--- "tab:<handle>", "name:<name>"), each {buf, job, tab, name}; key is the one
--- whose buf and job are in M.terminal now. pids: clientId -> the pid the CLI
--- reported (clientPid), to tell whose diff is whose.
M.sessions = { by_key = {}, key = "default", pids = {} }

--- Sharing with Claude (:ClaudeCodePause): paused survives bridge restarts.
M.sharing = { paused = false }

--- The last :ClaudeCodeInstall: { path = string|nil, err = string|nil }.
M.install = { last = nil }

-- The bridge connection's transitions. Only these change M.bridge.

--- A bridge process was started (not yet ready).
---@param client table the rpc client
function M.bridge_started(client)
  local b = M.bridge
  b.client, b.info, b.last_stderr = client, nil, client.stderr
end

--- The bridge answered initialize: it is ready. Returns the callbacks that
--- were waiting for it (the caller runs them), and forgets them.
---@param info table the initialize result
---@return fun(info: table)[]
function M.bridge_ready(info)
  local b = M.bridge
  b.info = info
  M.claude.sessions, M.claude.turn, M.claude.skipped = {}, nil, {} -- a new bridge: its sessions report anew
  local waiting = b.waiting
  b.waiting = {}
  return waiting
end

--- Adds cb to the callbacks run when the bridge is ready.
---@param cb fun(info: table)
function M.bridge_wait(cb)
  table.insert(M.bridge.waiting, cb)
end

--- The bridge could not start: nobody waits any more.
function M.bridge_failed()
  M.bridge.waiting = {}
end

--- The bridge process ended with code. Returns the info it had when it was
--- ready (nil if it never was) and whether stop() asked for the exit.
---@param code integer
---@return table|nil info, boolean stopping
function M.bridge_exited(code)
  local b = M.bridge
  local info, stopping = b.info, b.stopping
  b.client, b.info, b.clients, b.agents, b.exit_code = nil, nil, 0, {}, code
  b.waiting, b.stopping = {}, false
  return info, stopping
end

--- stop() was asked: the exit that follows is expected.
function M.bridge_stopping()
  M.bridge.stopping = M.bridge.client ~= nil
  M.bridge.info = nil
end

--- Who is connected, as the bridge reported it (clientConnected/clientDisconnected).
---@param n any the bridge's count (a number, else ignored)
---@param agents any the same by CLI (a table, else ignored)
---@return integer clients, table<string, integer> agents
function M.set_clients(n, agents)
  M.bridge.clients = tonumber(n) or M.bridge.clients
  if type(agents) == "table" then
    M.bridge.agents = {}
    for k, v in pairs(agents) do
      if type(k) == "string" and type(v) == "number" then
        M.bridge.agents[k] = v
      end
    end
  end
  return M.bridge.clients, vim.deepcopy(M.bridge.agents)
end

--- The bridge's rpc client when it is ready, else nil.
---@return table|nil
function M.ready_client()
  local b = M.bridge
  if b.client and b.info then
    return b.client
  end
  return nil
end

--- Sends a request to the ready bridge; cb(err, result). When the bridge is
--- not ready cb gets an error at once (code -32099), never a silent drop.
---@param method string
---@param params table
---@param cb? fun(err: table|nil, result: any)
function M.request(method, params, cb)
  local client = M.ready_client()
  if not client then
    if cb then
      cb({ code = -32099, message = "the bridge is not running (:ClaudeCodeStart)" })
    end
    return
  end
  client:request(method, params, cb)
end

return M
