-- Terminal provider "none": the plugin starts no CLI. Run `claude` in the
-- project directory and pick this Neovim with /ide (the bridge's lock file
-- announces it), or `claude-ide-bridge env` for the exports.
local M = {}

function M.buf()
  return nil
end

function M.running()
  return false
end

function M.is_current()
  return false
end

function M.hide() end

function M.close() end

function M.open(_, env)
  vim.notify(("claude-ide-bridge: the bridge listens on port %s; run claude in this directory and use /ide"):format(
    tostring(env and env.CLAUDE_CODE_SSE_PORT)))
end

return M
