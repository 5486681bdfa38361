-- claude-ide-bridge for Neovim: runs `claude-ide-bridge serve --stdio` and
-- answers it. This module is the public API, a facade: setup() wires the
-- plugin; each other function is its concern's (bridge.lua: the bridge
-- process and its requests; claude.lua: Claude's terminal and command line;
-- status.lua: what the plugin knows). No module requires this one.
local bridge = require("claude-ide-bridge.bridge")
local claude = require("claude-ide-bridge.claude")
local config = require("claude-ide-bridge.config")
local state = require("claude-ide-bridge.state")
local status = require("claude-ide-bridge.status")
local tracker = require("claude-ide-bridge.tracker")

--- The public API: require("claude-ide-bridge").
---@class claude-ide-bridge
local M = {
  bin = bridge.bin,
  start = bridge.start,
  stop = bridge.stop,
  at_mention = bridge.at_mention,
  close_all_diffs = bridge.close_all_diffs,
  set_paused = bridge.set_paused,
  toggle = claude.toggle,
  open_terminal = claude.open_terminal,
  close_terminal = claude.close_terminal,
  claude_command = claude.claude_command,
  session = claude.session,
  state = status.state,
  status = status.status,
  sessions = status.sessions,
  show_status = status.show_status,
}

local augroup = vim.api.nvim_create_augroup("ClaudeIdeBridge", { clear = true })

--- Sets the options and starts the bridge unless auto_start is false.
--- lazy.nvim calls it with `opts`. Options are checked with vim.validate: an
--- unknown or bad one is reported in one ERROR notification naming each, and
--- its default is used (config.set says when the bridge is not started).
--- Never raises for bad options.
---@param opts? claude-ide-bridge.Config
function M.setup(opts)
  local _, problems = config.set(opts)
  if #problems > 0 then
    local lines = {}
    for i, p in ipairs(problems) do
      lines[i] = p:find("^setup%(%)") and p or ("option " .. p)
    end
    lines[#lines + 1] = "(ignored: the defaults apply; :help claude-ide-bridge-options)"
    require("claude-ide-bridge.notice").show(table.concat(lines, "\n"), vim.log.levels.ERROR)
  end
  require("claude-ide-bridge.commands").create()
  if config.options.tabline then
    require("claude-ide-bridge.tabline").install()
  end
  tracker.watch_windows()
  -- Buffers follow the disk (Claude's writes): see watch.lua.
  require("claude-ide-bridge.watch").start()
  -- Your saves are yours, not Claude's, in the record of turns (review.lua).
  require("claude-ide-bridge.review").watch_writes()
  vim.api.nvim_clear_autocmds({ group = augroup })
  vim.api.nvim_create_autocmd("DirChanged", {
    group = augroup,
    callback = function()
      local client = state.ready_client()
      if client then
        client:notify("workspaceFoldersChanged", { folders = bridge.workspace_folders() })
      end
    end,
  })
  -- A closed file's selection is never sent later (to a session that connects after).
  vim.api.nvim_create_autocmd("BufUnload", {
    group = augroup,
    callback = function(a)
      local client = state.ready_client()
      local name = vim.api.nvim_buf_get_name(a.buf)
      if client and name ~= "" and vim.bo[a.buf].buftype == "" then
        client:notify("fileClosed", { filePath = name })
      end
    end,
  })
  vim.api.nvim_create_autocmd("VimLeavePre", {
    group = augroup,
    callback = function()
      -- A Claude outside Neovim (tmux, external, one started by hand) keeps
      -- its IDE: the bridge outlives Neovim for it. One inside ends with us.
      bridge.stop(not claude.inside())
    end,
  })
  if config.options.auto_start then
    bridge.start()
  end
end

return M
