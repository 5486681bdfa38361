-- Claude in a terminal: :ClaudeCode's command line as the bridge composes it
-- (claudeCommand: the permission flag, its hooks, --mcp-config) and the
-- terminal it runs in (terminal.lua and its providers).
local bridge = require("claude-ide-bridge.bridge")
local config = require("claude-ide-bridge.config")
local remote = require("claude-ide-bridge.remote")
local state = require("claude-ide-bridge.state")
local terminal = require("claude-ide-bridge.terminal")

local M = {}

local notify = require("claude-ide-bridge.notice").show

--- Whether a claude runs in this Neovim's own terminal (native or snacks): it
--- ends with Neovim, so the bridge need not outlive it.
---@return boolean
function M.inside()
  if terminal.running() then
    return true
  end
  local ok, snacks = pcall(require, "claude-ide-bridge.providers.snacks")
  return ok and snacks.running() or false
end

-- The params of claudeCommand (docs/editor-protocol.md) for terminal_cmd with
-- args: the options the bridge's rule reads. A string terminal_cmd is split
-- on blanks, enough for the bridge to see a permission flag in it and find
-- its program. In remote mode the program is the remote's: not looked up here.
local function command_params(args)
  local tc = config.options.terminal_cmd
  local words = type(tc) == "table" and tc or vim.split(tc, "%s+", { trimempty = true })
  local p = { command = words, modelTools = config.options.model_tools ~= false, remote = remote.enabled() }
  if args and #args > 0 then
    p.args = args
  end
  if config.options.permission_mode ~= nil then
    p.permissionMode = config.options.permission_mode
  end
  return p, words
end

local mode_told = false

-- Calls done(cmd, env) with the command that runs claude, as the bridge
-- composes it (claudeCommand: the permission flag, its hooks, --mcp-config);
-- its notice (edits skip diffs) is shown once. claude is the program the
-- bridge found (argv[1]: never the workspace's, docs/security.md section 15);
-- a string terminal_cmd stays a shell line with argv[1] for its first word;
-- in remote mode it runs through the remote command in the REMOTE folder of
-- Neovim's cwd.
-- With agent ("gemini", "qwen"), that agent's command line instead: the
-- program, args and the port variable the bridge composes (terminal_cmd and
-- the permission options are claude's). done runs in the tab page the command
-- was typed in: a :tabnew typed before the bridge answers must not take it.
local function with_command(args, done, agent)
  local tab = vim.api.nvim_get_current_tabpage()
  bridge.start(function()
    local params, words = command_params(args)
    if agent then
      params, words = { agent = agent, args = args, remote = remote.enabled() }, {}
    end
    state.request("claudeCommand", params, function(err, c)
      vim.schedule(function()
        if err or type(c) ~= "table" or type(c.argv) ~= "table" then
          return notify((agent or "claude") .. "'s command line: " .. tostring(err and err.message), vim.log.levels.ERROR)
        end
        if type(c.notice) == "string" and not mode_told then
          mode_told = true
          notify(c.notice .. ". :help claude-ide-bridge-permission-mode", vim.log.levels.WARN)
        end
        local cmd = c.argv
        local tc = config.options.terminal_cmd
        if type(tc) == "string" and not agent then
          if words[1] and c.argv[1] ~= words[1] then
            local prog = vim.fn.shellescape(c.argv[1])
            tc = tc:gsub("^%s*%S+", function()
              return prog
            end, 1)
          end
          cmd = terminal.command(tc, vim.list_slice(c.argv, #words + 1))
        end
        if remote.enabled() then
          local dir, why = remote.to_remote(bridge.workspace_folders()[1])
          if not dir then
            return notify(why, vim.log.levels.ERROR)
          end
          cmd = remote.terminal_cmd(cmd, c.env, dir)
        end
        if vim.api.nvim_tabpage_is_valid(tab) then
          vim.api.nvim_set_current_tabpage(tab)
        end
        done(cmd, c.env)
      end)
    end)
  end)
end

--- :ClaudeCode [args]: hides claude when its window is the current one, else
--- shows and focuses it, starting `terminal_cmd args` when it is not running.
---@param args? string[] extra CLI arguments, e.g. { "--resume" }
function M.toggle(args)
  with_command(args, function(cmd, env)
    terminal.toggle(cmd, env, config.options.terminal, args)
  end)
end

--- :ClaudeCodeFocus [args]: shows and focuses claude (starting it when needed).
---@param args? string[]
function M.open_terminal(args)
  with_command(args, function(cmd, env)
    terminal.open(cmd, env, config.options.terminal, args)
  end)
end

--- The agents :ClaudeCodeAgent starts (the bridge serves them: docs/gemini.md).
M.AGENTS = { "gemini", "qwen" }

--- :ClaudeCodeAgent {name} [args]: shows and focuses that agent's terminal
--- (a session of its own beside claude's), starting it when needed. A
--- snacks terminal holds one CLI, so the agent's is then a native one.
---@param name string "gemini" or "qwen"
---@param args? string[]
function M.agent(name, args)
  local opts = vim.tbl_extend("force", {}, config.options.terminal)
  if opts.provider == "snacks" then
    opts.provider = "native"
  end
  with_command(args, function(cmd, env)
    terminal.open(cmd, env, opts, args, "agent:" .. name)
  end, name)
end

--- :ClaudeCodeClose: stops the claude the plugin started.
function M.close_terminal()
  terminal.close(config.options.terminal)
end

--- How :ClaudeCode would start claude, as the bridge composes it (nil, why
--- when it cannot tell): { argv, env, display, permissionMode, why, notice }.
--- Waits up to timeout_ms (default 2000) for the answer.
---@param timeout_ms? integer
---@return table|nil, string|nil
function M.claude_command(timeout_ms)
  local done, res, why = false, nil, nil
  state.request("claudeCommand", (command_params()), function(err, r)
    res, why, done = (not err and type(r) == "table") and r or nil, err and tostring(err.message), true
  end)
  vim.wait(timeout_ms or 2000, function()
    return done
  end, 10)
  if not done then
    return nil, "the bridge did not answer"
  end
  return res, why
end

--- :ClaudeCodeSession {name} [args]: this tab page's Claude becomes the
--- session called name (started when needed), shown and focused.
---@param name string
---@param args? string[]
function M.session(name, args)
  vim.t.claude_ide_bridge_session = name
  M.open_terminal(args)
end

return M
