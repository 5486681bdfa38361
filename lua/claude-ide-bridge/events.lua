-- User autocommands for statuslines and user config:
--
--   ClaudeCodeConnected     data = { clients = n, agent = "claude"|"gemini"|"qwen" }  a client connected
--   ClaudeCodeDisconnected  data = { clients = n }     one went away
--   ClaudeCodeDiffOpened    data = { file = path, tab_name = name }
--   ClaudeCodeDiffClosed    data = { file = path, tab_name = name, accepted = bool }
--   ClaudeCodeState         data = { session = id, state = s, reason = text }  a session's state changed
--   ClaudeCodeWaiting       data = { session = id, reason = text }  a session started waiting for you
--   ClaudeCodeTurnEnded     data = { turn = n, files = n, added = n, deleted = n }
--
-- Listen with nvim_create_autocmd("User", { pattern = "ClaudeCodeDiffClosed",
-- callback = function(ev) ... ev.data ... end }). Neovim 0.7 has no `data` on
-- autocommands: there the same table is events.data while the callback runs.
local M = {}

-- The data of the event being fired (for Neovim 0.7, whose autocommands carry none).
M.data = nil

local has_data = vim.fn.has("nvim-0.8") == 1

--- Fires the User autocommand `name` with data. Errors in listeners are
--- reported, never raised into the plugin.
---@param name string
---@param data table
function M.emit(name, data)
  local prev = M.data
  M.data = data
  local opts = { pattern = name, modeline = false }
  if has_data then
    opts.data = data
  end
  local ok, err = pcall(vim.api.nvim_exec_autocmds, "User", opts)
  M.data = prev
  if not ok then
    vim.notify("claude-ide-bridge: a " .. name .. " listener failed: " .. tostring(err), vim.log.levels.WARN)
  end
end

return M
