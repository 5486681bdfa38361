-- Notices the user must see. vim.notify's built-in echo goes unseen while
-- Claude's terminal has focus: terminal mode redraws over the message line, and
-- a notice raised just before the terminal takes focus (:ClaudeCode --resume
-- while claude runs) is cleared by the mode change. So every notice goes to
-- vim.notify (the user's notifier, or the echo and :messages), and when the
-- current window is a terminal, now or once focus has settled (the next event
-- loop turn), it is also shown in a small float at the top right of the
-- screen for a few seconds. A notifier of the user's (nvim-notify, snacks,
-- noice) already draws floats: then nothing more is drawn.
local M = {}

-- Seconds a notice stays in the float: errors and warnings longer.
M.SECONDS = { [vim.log.levels.ERROR] = 10, [vim.log.levels.WARN] = 8 }
M.DEFAULT_SECONDS = 5

-- The float's state: its window and buffer, and the notices shown in it.
local float = { win = nil, buf = nil, items = {} }

-- Notices shown in this event-loop turn.
local recent = {}

local function builtin_notify()
  local ok, info = pcall(debug.getinfo, vim.notify, "S")
  if not ok or type(info) ~= "table" then
    return true
  end
  local src = info.source or "?"
  -- Neovim's own runtime: "@.../vim/_editor.lua", or "?" when it is built in as bytecode (0.10+).
  return src == "?" or src:find("vim/_", 1, true) ~= nil
end

local function in_terminal()
  local mode = vim.api.nvim_get_mode().mode
  return mode:sub(1, 1) == "t" or vim.bo[vim.api.nvim_get_current_buf()].buftype == "terminal"
end

local HL = { [vim.log.levels.ERROR] = "ErrorMsg", [vim.log.levels.WARN] = "WarningMsg" }

local function render()
  if #float.items == 0 then
    if float.win and vim.api.nvim_win_is_valid(float.win) then
      pcall(vim.api.nvim_win_close, float.win, true)
    end
    float.win = nil
    return
  end
  if not (float.buf and vim.api.nvim_buf_is_valid(float.buf)) then
    float.buf = vim.api.nvim_create_buf(false, true)
    vim.bo[float.buf].bufhidden = "hide"
  end
  local lines, width = {}, 10
  for _, it in ipairs(float.items) do
    for _, l in ipairs(vim.split(it.msg, "\n", { plain = true })) do
      lines[#lines + 1] = l
      width = math.max(width, vim.fn.strdisplaywidth(l))
    end
  end
  width = math.min(width, math.max(vim.o.columns - 4, 10))
  local height = math.min(#lines, math.max(vim.o.lines - 4, 1))
  vim.api.nvim_buf_set_lines(float.buf, 0, -1, false, lines)
  local cfg = {
    relative = "editor", anchor = "NE", row = 1, col = vim.o.columns - 1,
    width = width, height = height, style = "minimal", border = "rounded",
    focusable = false, zindex = 250,
  }
  if float.win and vim.api.nvim_win_is_valid(float.win) then
    vim.api.nvim_win_set_config(float.win, cfg)
  else
    cfg.noautocmd = true
    float.win = vim.api.nvim_open_win(float.buf, false, cfg)
    vim.wo[float.win].wrap = true
  end
  local worst = vim.log.levels.INFO
  for _, it in ipairs(float.items) do
    worst = math.max(worst, it.level)
  end
  vim.wo[float.win].winhighlight = "Normal:NormalFloat,FloatBorder:" .. (HL[worst] or "FloatBorder")
end

local function show_float(msg, level)
  local item = { msg = msg, level = level }
  table.insert(float.items, item)
  render()
  vim.defer_fn(function()
    for i, it in ipairs(float.items) do
      if it == item then
        table.remove(float.items, i)
        break
      end
    end
    render()
  end, (M.SECONDS[level] or M.DEFAULT_SECONDS) * 1000)
end

--- The callback of a bridge request (state.request) whose answer is handled
--- in the main loop: on_ok(result), or the error shown as "what: message".
---@param what string
---@param on_ok fun(result: any)
function M.on_answer(what, on_ok)
  return function(err, result)
    vim.schedule(function()
      if err then
        return M.show(what .. ": " .. tostring(err.message), vim.log.levels.ERROR)
      end
      on_ok(result)
    end)
  end
end

--- Shows "claude-ide-bridge: msg" where the user looks (see the top of this file).
---@param msg string
---@param level? integer vim.log.levels (default INFO)
function M.show(msg, level)
  level = level or vim.log.levels.INFO
  msg = "claude-ide-bridge: " .. msg
  -- The same notice twice in one event-loop turn (setup() and the command
  -- lazy.nvim runs after it both find no bridge) is shown once.
  if recent[msg] then
    return
  end
  if next(recent) == nil then
    vim.schedule(function()
      recent = {}
    end)
  end
  recent[msg] = true
  if not builtin_notify() then
    vim.notify(msg, level)
    return
  end
  if level >= vim.log.levels.ERROR then
    -- The built-in ERROR is an error message: inside vim.cmd() (lazy.nvim
    -- runs a lazy-loaded command that way) it becomes a Lua error, shown with
    -- a traceback. Out of the command's way, it is only a message.
    vim.schedule(function()
      vim.notify(msg, level)
    end)
  else
    vim.notify(msg, level)
  end
  if in_terminal() then
    show_float(msg, level)
    return
  end
  -- Focus may be moving to the terminal right now (the notice came first).
  vim.schedule(function()
    if in_terminal() then
      show_float(msg, level)
    end
  end)
end

--- The notices in the float now (for tests and status lines).
---@return string[]
function M.shown()
  local out = {}
  if float.win and vim.api.nvim_win_is_valid(float.win) then
    for _, it in ipairs(float.items) do
      out[#out + 1] = it.msg
    end
  end
  return out
end

return M
