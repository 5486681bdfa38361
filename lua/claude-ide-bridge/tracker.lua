-- Selection tracking: sends selectionChanged, debounced, when the encoded
-- selection differs from the last one sent. Buffers that are not named files
-- (the Claude terminal, diff proposals, scratch) are never reported.
local selection = require("claude-ide-bridge.selection")

local M = {}

-- Tracking state lives in state.lua (state.tracker); the table is never replaced.
local state = require("claude-ide-bridge.state").tracker

local augroup = vim.api.nvim_create_augroup("ClaudeIdeBridgeSelection", { clear = true })

local function is_file_win(win)
  if not (win and vim.api.nvim_win_is_valid(win)) or vim.api.nvim_win_get_config(win).relative ~= "" then
    return false
  end
  local buf = vim.api.nvim_win_get_buf(win)
  return vim.bo[buf].buftype == "" and vim.api.nvim_buf_get_name(buf) ~= ""
end

--- The window whose selection counts: the current one when it shows a file,
--- else the last one that did (nil when none is left).
function M.active_win()
  local cur = vim.api.nvim_get_current_win()
  if is_file_win(cur) then
    return cur
  end
  return is_file_win(state.last_win) and state.last_win or nil
end

--- Reads the active selection now (for getCurrentSelection); nil without one.
function M.current()
  local win = M.active_win()
  return win and selection.read(win) or nil
end

-- The current window is the last file window when it shows a file.
local function remember()
  local win = vim.api.nvim_get_current_win()
  if is_file_win(win) then
    state.last_win = win
  end
end

local function flush()
  if not state.send then
    return
  end
  state.flushes = state.flushes + 1
  local cur = vim.api.nvim_get_current_win()
  if not is_file_win(cur) then
    return
  end
  state.last_win = cur
  local sel = selection.read(cur)
  if not sel then
    return
  end
  local key = vim.json.encode(sel)
  if key == state.last then
    return
  end
  state.last = key
  state.sent = state.sent + 1
  state.send(sel)
end

local function schedule()
  if not state.send then
    return
  end
  remember()
  if not state.timer then
    state.timer = (vim.uv or vim.loop).new_timer()
  end
  state.timer:stop()
  state.timer:start(state.delay, 0, vim.schedule_wrap(flush))
end

--- Counters for :ClaudeCodeStatus and tests: {flushes, sent}.
function M.stats()
  return { flushes = state.flushes, sent = state.sent }
end

--- The JSON of the last selection sent, or nil.
function M.last_sent()
  return state.last
end

--- Watches window focus (always, for getCurrentSelection's active window).
function M.watch_windows()
  vim.api.nvim_create_autocmd({ "WinEnter", "BufEnter" }, {
    group = augroup,
    callback = remember,
  })
end

--- Starts sending: send(sel) is called with each new selection.
function M.start(send, delay)
  M.stop()
  state.send = send
  state.delay = delay or 50
  state.last = nil
  M.watch_windows()
  vim.api.nvim_create_autocmd({ "CursorMoved", "CursorMovedI", "ModeChanged", "BufEnter", "WinEnter", "TextChanged" }, {
    group = augroup,
    callback = schedule,
  })
  schedule()
end

function M.stop()
  state.send = nil
  state.last = nil
  if state.timer then
    state.timer:stop()
    state.timer:close()
    state.timer = nil
  end
  vim.api.nvim_clear_autocmds({ group = augroup })
end

return M
