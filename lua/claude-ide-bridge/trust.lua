-- :ClaudeCodeTrust: trusting a folder in the bridge's trust store.
--
-- A folder's language servers read its toolchain files, node_modules and
-- build scripts, so they can run code it contains; the bridge starts none in a
-- folder the user has not trusted (docs/security.md). The store is the bridge's
-- (`claude-ide-bridge trust`), shared with `serve` and Nova, so one act trusts
-- a folder for every editor. Neovim's own :trust (vim.secure, 0.9+) is about
-- 'exrc' files and is not consulted: trusting a folder to run its code is a
-- separate, explicit act.
local M = {}

local notify = require("claude-ide-bridge.notice").show

--- Runs `bin trust DIR` (or `trust --revoke DIR` when revoke) and reports its
--- answer. dir defaults to the current directory. Returns true on success.
---@param dir? string
---@param revoke? boolean
---@return boolean
function M.run(dir, revoke)
  local bin = require("claude-ide-bridge.bridge").bin()
  if not bin then
    notify("the claude-ide-bridge binary is not installed: run :ClaudeCodeInstall", vim.log.levels.ERROR)
    return false
  end
  if not dir or dir == "" then
    dir = vim.fn.getcwd(-1, -1)
  end
  dir = vim.fn.fnamemodify(vim.fn.expand(dir), ":p")
  local args = { bin, "trust" }
  if revoke then
    args[#args + 1] = "--revoke"
  end
  args[#args + 1] = dir
  local out = vim.fn.system(args)
  local ok = vim.v.shell_error == 0
  out = vim.trim(out or "")
  if ok and not revoke then
    out = out .. "\nThe bridge starts language servers there from now on (a running one: after :ClaudeCodeStop and :ClaudeCodeStart)."
  end
  notify(out ~= "" and out or ("claude-ide-bridge trust exited with status " .. vim.v.shell_error), ok and vim.log.levels.INFO or vim.log.levels.ERROR)
  return ok
end

return M
