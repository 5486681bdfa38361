-- User commands. create() is idempotent; plugin/ and setup() both call it.
local M = {}

local notify = require("claude-ide-bridge.notice").show

-- Required when a command runs: plugin/ creates the commands before setup().
local function bridge()
  return require("claude-ide-bridge.bridge")
end

local function claude()
  return require("claude-ide-bridge.claude")
end

local function diff_cmd(action)
  return function()
    local diff = require("claude-ide-bridge.diff")
    local d, why = diff.target()
    if not d then
      return notify(why, vim.log.levels.WARN)
    end
    diff[action](d)
  end
end

--- :ClaudeCodeSend: a range (or Visual selection, also through a <Cmd>
--- mapping) sends those lines, without one the whole file.
local function send(o)
  local buf = vim.api.nvim_get_current_buf()
  local path = vim.api.nvim_buf_get_name(buf)
  if path == "" or vim.bo[buf].buftype ~= "" then
    return notify("this buffer is not a file", vim.log.levels.WARN)
  end
  local vtype = require("claude-ide-bridge.selection").visual_type(vim.api.nvim_get_mode().mode)
  if o.range > 0 then
    bridge().at_mention(path, o.line1 - 1, o.line2 - 1)
  elseif vtype then
    -- Run from Visual mode without a range (a <Cmd> mapping): its lines.
    local a, c = vim.fn.line("v"), vim.fn.line(".")
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<Esc>", true, false, true), "n", false)
    bridge().at_mention(path, math.min(a, c) - 1, math.max(a, c) - 1)
  else
    bridge().at_mention(path)
  end
end

--- :ClaudeCodeAdd <path> [start] [end]: 1-based lines as the user counts.
local function add(o)
  local args = o.fargs
  local path = vim.fn.fnamemodify(vim.fn.expand(args[1]), ":p")
  if vim.fn.filereadable(path) == 0 and vim.fn.isdirectory(path) == 0 then
    return notify("no such file: " .. args[1], vim.log.levels.ERROR)
  end
  if vim.fn.isdirectory(path) == 1 then
    path = path:gsub("/+$", "")
  end
  local s, e = tonumber(args[2]), tonumber(args[3])
  if (args[2] and not s) or (args[3] and not e) or (s and s < 1) or (e and s and e < s) then
    return notify("usage: :ClaudeCodeAdd <path> [start] [end] (1-based lines, start <= end)", vim.log.levels.ERROR)
  end
  bridge().at_mention(path, s and s - 1, s and (e or s) - 1)
end

--- :[range]ClaudeCodeSendText[!] [text]: text (submitted unless !), else the
--- range's lines (or the Visual selection through a <Cmd> mapping), pasted
--- into Claude's prompt without submitting, and Claude's terminal focused so
--- you can ask about them.
local function send_text(o)
  local terminal = require("claude-ide-bridge.terminal")
  if o.args ~= "" then
    terminal.send_text(o.args, not o.bang)
    return
  end
  local buf = vim.api.nvim_get_current_buf()
  local text
  local vtype = require("claude-ide-bridge.selection").visual_type(vim.api.nvim_get_mode().mode)
  if vtype then
    -- A <Cmd> mapping from Visual mode: exactly the selection.
    local sel = require("claude-ide-bridge.selection").read()
    text = sel and sel.text
    if not text then -- not a file (a scratch buffer): its lines
      local a, c = vim.fn.line("v"), vim.fn.line(".")
      text = table.concat(vim.api.nvim_buf_get_lines(buf, math.min(a, c) - 1, math.max(a, c), false), "\n")
    end
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<Esc>", true, false, true), "n", false)
  elseif o.range > 0 then
    text = table.concat(vim.api.nvim_buf_get_lines(buf, o.line1 - 1, o.line2, false), "\n")
  end
  if not text or text == "" then
    return notify("usage: :ClaudeCodeSendText <text>, or with a range or a Visual selection", vim.log.levels.WARN)
  end
  if terminal.send_text(text, o.bang) then
    claude().open_terminal()
  end
end

function M.create()
  local c = vim.api.nvim_create_user_command
  c("ClaudeCode", function(o)
    claude().toggle(o.fargs)
  end, { nargs = "*", desc = "Toggle the Claude terminal; arguments go to the CLI (e.g. --resume)" })
  c("ClaudeCodeFocus", function(o)
    claude().open_terminal(o.fargs)
  end, { nargs = "*", desc = "Show and focus the Claude terminal" })
  c("ClaudeCodeClose", function()
    claude().close_terminal()
  end, { desc = "Stop the Claude CLI the plugin started" })
  c("ClaudeCodeTreeAdd", function(o)
    require("claude-ide-bridge.tree").add(o.range > 0 and o.line1 or nil, o.range > 0 and o.line2 or nil)
  end, { range = true, desc = "Send the file(s) under the cursor in a file tree to Claude" })
  c("ClaudeCodeInstall", function(o)
    -- setup() could not start the bridge without a binary; with auto_start it starts now, so
    -- :ClaudeCodeStatus does not say "not running" until the next Neovim (issue 39 item 10).
    if require("claude-ide-bridge.install").run({ force = o.bang }) and require("claude-ide-bridge.config").options.auto_start then
      bridge().start()
    end
  end, { bang = true, desc = "Download (or build) the claude-ide-bridge binary" })
  c("ClaudeCodeStart", function()
    bridge().start()
  end, { desc = "Start the claude-ide-bridge process" })
  c("ClaudeCodeStop", function()
    bridge().stop()
  end, { desc = "Stop the claude-ide-bridge process" })
  c("ClaudeCodeTrust", function(o)
    require("claude-ide-bridge.trust").run(o.args, o.bang)
  end, { nargs = "?", bang = true, complete = "dir", desc = "Trust a folder (default: the current one) so the bridge may run its language servers; ! revokes" })
  c("ClaudeCodeStatus", function()
    require("claude-ide-bridge.status").show_status()
  end, { desc = "Show the bridge's port, clients and diffs" })
  c("ClaudeCodeSend", send, { range = true, desc = "Send the selected lines to Claude as an @-mention" })
  c("ClaudeCodeSendText", send_text, { nargs = "*", range = true, bang = true,
    desc = "Paste text (submitted unless !) or the selected lines (not submitted) into Claude's prompt" })
  c("ClaudeCodeAdd", add, { nargs = "+", complete = "file", desc = "Send a file or line range to Claude" })
  c("ClaudeCodeDiffAccept", diff_cmd("accept"), { desc = "Accept the diff with the proposal's text" })
  c("ClaudeCodeDiffDeny", diff_cmd("reject"), { desc = "Reject the diff" })
  c("ClaudeCodeSession", function(o)
    local args = vim.list_slice(o.fargs, 2)
    claude().session(o.fargs[1], args)
  end, { nargs = "+", desc = "Open (or start) the Claude session {name} in this tab page" })
  c("ClaudeCodeAgent", function(o)
    local name = o.fargs[1]
    if not vim.tbl_contains(claude().AGENTS, name) then
      return notify("usage: :ClaudeCodeAgent {" .. table.concat(claude().AGENTS, "|") .. "} [args]", vim.log.levels.ERROR)
    end
    claude().agent(name, vim.list_slice(o.fargs, 2))
  end, { nargs = "+", complete = function(lead, line)
    if #vim.split(line, "%s+") > 2 then
      return {}
    end
    return vim.tbl_filter(function(a)
      return a:sub(1, #lead) == lead
    end, claude().AGENTS)
  end, desc = "Open (or start) the Gemini CLI or Qwen Code in a terminal, as the bridge composes its command line" })
  c("ClaudeCodePause", function()
    bridge().set_paused(true)
  end, { desc = "Pause sharing the selection, open files and diagnostics with Claude" })
  c("ClaudeCodeResume", function()
    bridge().set_paused(false)
  end, { desc = "Resume sharing with Claude" })
  c("ClaudeCodeReview", function(o)
    local n = tonumber(o.args)
    if o.args ~= "" and not n then
      return notify("usage: :ClaudeCodeReview [N] (a turn number; default the last that changed a file)", vim.log.levels.ERROR)
    end
    bridge().start(function()
      require("claude-ide-bridge.review").open(n)
    end)
  end, { nargs = "?", desc = "Review what Claude's last turn (or turn N) changed, file by file" })
  c("ClaudeCodeReviewRevert", function()
    require("claude-ide-bridge.review").revert()
  end, { desc = "Put the file of this review tab back as it was at the turn's start" })
  c("ClaudeCodePermissions", function()
    require("claude-ide-bridge.permission").command()
  end, { desc = "List Claude's pending permission questions and answer the oldest" })
  c("ClaudeCodeCloseAllDiffs", function()
    bridge().close_all_diffs()
  end, { desc = "Reject pending diffs and close every diff view" })
end

return M
