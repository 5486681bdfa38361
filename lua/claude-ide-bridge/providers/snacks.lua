-- Terminal provider "snacks": claude in snacks.nvim's terminal, through its
-- documented API (Snacks.terminal.get/open, snacks.win's show/hide/focus).
local M = {}

local term = nil -- the snacks.win of the running claude

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
  return term ~= nil and term.buf ~= nil and vim.api.nvim_buf_is_valid(term.buf)
end

function M.buf()
  return valid() and term.buf or nil
end

function M.running()
  if not valid() then
    return false
  end
  local ok, job = pcall(function()
    return vim.b[term.buf].terminal_job_id
  end)
  return ok and job ~= nil and vim.fn.jobwait({ job }, 0)[1] == -1
end

function M.is_current()
  return valid() and term.win ~= nil and term.win == vim.api.nvim_get_current_win()
end

function M.open(cmd, env, opts)
  if M.running() then
    if term.show then
      term:show()
    end
    if term.focus then
      term:focus()
    end
    return
  end
  term = snacks().terminal.open(cmd, {
    env = env,
    interactive = true,
    win = opts.snacks_win or { position = "right" },
  })
  if term and term.buf then
    vim.b[term.buf].claude_ide_bridge_terminal = true
  end
end

function M.hide()
  if valid() and term.hide then
    term:hide()
  end
end

function M.close()
  if valid() then
    if term.close then
      term:close()
    else
      pcall(vim.api.nvim_buf_delete, term.buf, { force = true })
    end
  end
  term = nil
end

return M
