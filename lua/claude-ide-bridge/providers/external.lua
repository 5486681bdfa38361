-- Terminal provider "external": claude runs outside Neovim, started by the
-- user's command line terminal.external_cmd, in which %s stands for the CLI's
-- command line (shell-quoted, prefixed with `env` and the variables that point
-- it at this bridge). Example for a tmux split:
--   terminal = { provider = "external", external_cmd = "tmux split-window -h %s" }
local M = {}

-- The job of the external command: state.terminal.external_job (state.lua).
local T = require("claude-ide-bridge.state").terminal

--- The shell command line for cmd with env as `env K=V ... cmd`.
---@param cmd string|string[]
---@param env table<string, string>
---@return string
function M.line(cmd, env)
  local parts = { "env" }
  local keys = vim.tbl_keys(env or {})
  table.sort(keys)
  for _, k in ipairs(keys) do
    parts[#parts + 1] = vim.fn.shellescape(k .. "=" .. tostring(env[k]))
  end
  if type(cmd) == "table" then
    for _, a in ipairs(cmd) do
      parts[#parts + 1] = vim.fn.shellescape(a)
    end
  else
    parts[#parts + 1] = cmd
  end
  return table.concat(parts, " ")
end

function M.buf()
  return nil
end

function M.running()
  return T.external_job ~= nil and vim.fn.jobwait({ T.external_job }, 0)[1] == -1
end

function M.is_current()
  return false
end

function M.hide() end

function M.open(cmd, env, opts)
  local line = M.line(cmd, env)
  local full = opts.external_cmd:gsub("%%s", function()
    return vim.fn.shellescape(line)
  end)
  local job = vim.fn.jobstart(full, { detach = true })
  T.external_job = job > 0 and job or nil
  if not T.external_job then
    require("claude-ide-bridge.notice").show("could not run " .. full, vim.log.levels.ERROR)
  end
end

-- The command started elsewhere belongs to the user: it is not stopped.
function M.close()
  T.external_job = nil
end

return M
