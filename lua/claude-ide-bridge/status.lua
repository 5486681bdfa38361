-- What the plugin knows, read without asking the bridge (status() for
-- statuslines, state() for :checkhealth and tests), and :ClaudeCodeStatus,
-- which asks it.
local diff = require("claude-ide-bridge.diff")
local permission = require("claude-ide-bridge.permission")
local state = require("claude-ide-bridge.state")
local terminal = require("claude-ide-bridge.terminal")

local M = {}

-- The bridge connection (state.lua).
local S = state.bridge

local notice = require("claude-ide-bridge.notice")
local notify = notice.show

---@class claude-ide-bridge.Snapshot
---@field running boolean the bridge process runs
---@field bridge_pid integer|nil its pid
---@field ready boolean it answered initialize
---@field port integer|nil
---@field lockPath string|nil
---@field mcpConfig string|nil
---@field clients integer clients connected (Claude, Gemini, Qwen)
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
---@field clients integer clients connected (Claude, Gemini, Qwen)
---@field agents table<string, integer> the same by CLI: { claude = 1, gemini = 1 }
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
    agents = ready and vim.deepcopy(S.agents) or {},
    pending_diffs = pending,
    attached = ready and S.info.attached == true,
    paused = state.sharing.paused,
    sessions = M.sessions(),
    claude = claude,
    claude_sessions = claude_sessions,
    permissions = ready and #permission.list() or 0,
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

--- :ClaudeCodeStatus: asks the bridge and shows its answer.
function M.show_status()
  if not (S.client and S.info) then
    notify(S.client and "bridge is starting" or "bridge is not running (:ClaudeCodeStart starts it)")
    return
  end
  state.request("status", vim.empty_dict(), notice.on_answer("status", function(r)
    local lines = {
      ("port %s, %s, lock %s, %s"):format(tostring(r.port), tostring(r.clientsLine), tostring(r.lockPath),
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
  end))
end

return M
