-- Terminal provider "snacks": claude in snacks.nvim's terminal, through its
-- documented API (Snacks.terminal.get/open, snacks.win's show/hide/focus).
local M = {}

-- The snacks.win of the running claude: state.terminal.snacks_win (state.lua).
local T = require("claude-ide-bridge.state").terminal

local function snacks()
  local ok, s = pcall(require, "snacks")
  return ok and s or nil
end

function M.available()
  local s = snacks()
  if not (s and s.terminal) then
    return false, "snacks.nvim is not installed"
  end
  return true
end

local function valid()
  return T.snacks_win ~= nil and T.snacks_win.buf ~= nil and vim.api.nvim_buf_is_valid(T.snacks_win.buf)
end

function M.buf()
  return valid() and T.snacks_win.buf or nil
end

function M.running()
  if not valid() then
    return false
  end
  local ok, job = pcall(function()
    return vim.b[T.snacks_win.buf].terminal_job_id
  end)
  return ok and job ~= nil and vim.fn.jobwait({ job }, 0)[1] == -1
end

function M.is_current()
  return valid() and T.snacks_win.win ~= nil and T.snacks_win.win == vim.api.nvim_get_current_win()
end

function M.open(cmd, env, opts)
  if M.running() then
    if T.snacks_win.show then
      T.snacks_win:show()
    end
    if T.snacks_win.focus then
      T.snacks_win:focus()
    end
    return
  end
  T.snacks_win = snacks().terminal.open(cmd, {
    env = env,
    interactive = true,
    win = opts.snacks_win or { position = "right" },
  })
  if T.snacks_win and T.snacks_win.buf then
    vim.b[T.snacks_win.buf].claude_ide_bridge_terminal = true
  end
end

function M.hide()
  if valid() and T.snacks_win.hide then
    T.snacks_win:hide()
  end
end

function M.close()
  if valid() then
    if T.snacks_win.close then
      T.snacks_win:close()
    else
      pcall(vim.api.nvim_buf_delete, T.snacks_win.buf, { force = true })
    end
  end
  T.snacks_win = nil
end

return M
