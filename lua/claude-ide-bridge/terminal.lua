-- The :ClaudeCode terminal: a split running `claude` with the environment
-- that points it at the bridge.
local M = {}

local term = { buf = nil, job = nil }

function M.buf()
  if term.buf and vim.api.nvim_buf_is_valid(term.buf) then
    return term.buf
  end
  return nil
end

function M.running()
  return M.buf() ~= nil and term.job ~= nil
end

local function window()
  local buf = M.buf()
  if not buf then
    return nil
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return win
    end
  end
  return nil
end

local function split(opts)
  local width = math.floor(vim.o.columns * (opts.size or 0.35))
  vim.cmd(("%s %dsplit"):format(opts.split or "botright vertical", math.max(width, 20)))
end

-- Runs cmd as a terminal in the current window (whose buffer must be new).
local function run(cmd, env)
  local job_env = {}
  for k, v in pairs(env or {}) do
    job_env[k] = tostring(v)
  end
  local opts = {
    env = job_env,
    on_exit = function(job)
      if term.job == job then
        term.job = nil
      end
    end,
  }
  local job
  if vim.fn.has("nvim-0.11") == 1 then
    opts.term = true
    job = vim.fn.jobstart(cmd, opts)
  else
    job = vim.fn.termopen(cmd, opts)
  end
  term.buf, term.job = vim.api.nvim_get_current_buf(), job > 0 and job or nil
  vim.b[term.buf].claude_ide_bridge_terminal = true
end

--- Opens or focuses the terminal. env: the environment for claude.
--- When claude has exited, a new one starts in its place.
function M.open(cmd, env, opts)
  local win = window()
  local old = M.buf()
  if old and not term.job then
    -- claude exited: replace its buffer, in its window when it has one.
    if win then
      vim.api.nvim_set_current_win(win)
    else
      split(opts or {})
    end
    vim.api.nvim_win_set_buf(0, vim.api.nvim_create_buf(false, true))
    pcall(vim.api.nvim_buf_delete, old, { force = true })
    run(cmd, env)
    vim.cmd("startinsert")
    return
  end
  if win then
    vim.api.nvim_set_current_win(win)
    vim.cmd("startinsert")
    return
  end
  split(opts or {})
  if old then
    vim.api.nvim_win_set_buf(0, old)
  else
    vim.api.nvim_win_set_buf(0, vim.api.nvim_create_buf(false, true))
    run(cmd, env)
  end
  vim.cmd("startinsert")
end

--- Stops claude and wipes its buffer.
function M.close()
  if term.job then
    pcall(vim.fn.jobstop, term.job)
    term.job = nil
  end
  local buf = M.buf()
  if buf then
    pcall(vim.api.nvim_buf_delete, buf, { force = true })
  end
  term.buf = nil
end

return M
