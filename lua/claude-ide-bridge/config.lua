-- Options, their defaults and their validation.
local state = require("claude-ide-bridge.state")

local M = {}

---@class claude-ide-bridge.TerminalConfig
---@field provider? "native"|"snacks"|"external"|"none" who runs the CLI (default "native")
---@field split? string native: the split command (default "botright vertical")
---@field size? number native: width (vertical) or height as a fraction of the screen, in (0, 1] (default 0.35)
---@field float? boolean native: a floating window instead of a split (default false)
---@field external_cmd? string external: a command line with %s for the CLI's command line
---@field snacks_win? table snacks: the `win` options of Snacks.terminal
---@field sessions? "one"|"tab" native: one claude, or one per tab page (default "one"; :ClaudeCodeSession names more)

---@class claude-ide-bridge.DiffConfig
---@field layout? "vertical"|"horizontal"|"unified" side by side, one above the other, or the proposal alone with the removed lines shown above the changes (default "vertical")
---@field open_in_new_tab? boolean a tab page of its own, else in the current tab beside your file (default true)
---@field keep_terminal_focus? boolean a diff never takes the focus (default false: only while you type)

---@class claude-ide-bridge.InstallConfig
---@field base_url? string where :ClaudeCodeInstall downloads releases from

---@class claude-ide-bridge.RemoteConfig
---@field cmd string[] runs a command on the other machine, e.g. { "ssh", "host" }
---@field path_map? table<string, string> LOCAL folder -> REMOTE folder
---@field bin? string the bridge on the other machine (default "claude-ide-bridge")
---@field terminal_cmd? string[] the command that runs claude there with a terminal (default: cmd with -t)
---@field shell? boolean whether cmd passes one shell command line (default: true for ssh)

--- The options of setup(); every field is optional (lua-language-server
--- completes them on `opts`). :help claude-ide-bridge-options.
---@class claude-ide-bridge.Config
---@field bin? string path of the claude-ide-bridge binary (default: $PATH, then the installed copy)
---@field auto_start? boolean start the bridge in setup() (default true)
---@field terminal_cmd? string|string[] the CLI command (default "claude")
---@field terminal? claude-ide-bridge.TerminalConfig
---@field track_selection? boolean send the selection as it changes (default true)
---@field selection_debounce_ms? integer quiet time before a selection is sent (default 50)
---@field ide_name? string the name in the CLI's /ide list (default "Neovim (<cwd basename>)")
---@field install? claude-ide-bridge.InstallConfig
---@field diff? claude-ide-bridge.DiffConfig how diffs are shown
---@field model_tools? boolean :ClaudeCode registers the code tools with the CLI (default true)
---@field permission_mode? false|"default"|"acceptEdits"|"plan"|"auto"|"dontAsk"|"bypassPermissions" the CLI's mode (default nil: "default" unless your Claude settings choose one; false: add no flag)
---@field remote? false|claude-ide-bridge.RemoteConfig bridge and claude on another machine (default false)
---@field tabline? boolean set 'tabline' to readable labels for Claude's tabs when it is empty (default true)
---@field exclude? string[] globs of files never shared with Claude (default nil: the bridge's, .env .env.* *.pem id_rsa* ...)
---@field permissions? boolean Claude's permission prompts are asked here too (default true)

---@type claude-ide-bridge.Config
M.defaults = {
  bin = nil,
  auto_start = true,
  terminal_cmd = "claude",
  terminal = {
    provider = "native",
    split = "botright vertical",
    size = 0.35,
    float = false,
    external_cmd = nil,
    snacks_win = nil,
    sessions = "one",
  },
  diff = {
    layout = "vertical",
    open_in_new_tab = true,
    keep_terminal_focus = false,
  },
  track_selection = true,
  selection_debounce_ms = 50,
  -- nil: "Neovim (<basename of the working directory when the bridge starts>)".
  ide_name = nil,
  install = {
    base_url = "https://github.com/claude-ide-bridge/claude-ide-bridge/releases/download",
  },
  -- :ClaudeCode registers the code tools (definition, references, ...: the
  -- bridge's MCP server, answered by this Neovim's language servers).
  model_tools = true,
  -- The CLI's --permission-mode. nil: "default" (each Edit/Write is a diff
  -- here) unless the arguments or permissions.defaultMode in the Claude
  -- settings choose a mode; false: :ClaudeCode adds no permission flag.
  permission_mode = nil,
  -- Run the bridge and claude on another machine: { cmd = { "ssh", "host" },
  -- path_map = { [LOCAL] = REMOTE }, bin = "claude-ide-bridge" } (remote.lua).
  remote = false,
  -- Set 'tabline' (when the user has none) to labels that name Claude's
  -- terminal and diffs readably (tabline.lua).
  tabline = true,
  -- Files whose selections, @-mentions, open-editor entries and diagnostics
  -- never reach Claude (the bridge enforces it). nil: the bridge's default
  -- (.env, .env.*, *.pem, *.key, id_rsa*, id_ed25519*, .netrc, ...); {}: share all.
  exclude = nil,
  -- Claude's permission prompts ("Do you want to proceed?") asked here too,
  -- in a float (:ClaudeCodePermissions); false: only in Claude's terminal.
  permissions = true,
}

-- Keys allowed in the user's table (the defaults' keys include those whose default is nil).
local known = {
  bin = true, auto_start = true, terminal_cmd = true, terminal = true, track_selection = true,
  selection_debounce_ms = true, ide_name = true, install = true, remote = true, model_tools = true,
  permission_mode = true, tabline = true, exclude = true, diff = true, permissions = true,
}
local known_terminal = { provider = true, split = true, size = true, float = true, external_cmd = true, snacks_win = true, sessions = true }
local known_install = { base_url = true }
local known_diff = { layout = true, open_in_new_tab = true, keep_terminal_focus = true }

-- The options in force live in state.options; config.options reads them
-- (a field, not a copy: code that sets config.options.x changes them).
state.options = state.options or vim.deepcopy(M.defaults)
setmetatable(M, {
  __index = function(_, k)
    if k == "options" then
      return state.options
    end
  end,
})

-- vim.validate changed its signature in Neovim 0.11: the table form still
-- works on 0.12 but reports itself to vim.deprecate (:checkhealth
-- vim.deprecated), and 0.10 and older know only the table form. One call, in
-- the form the running Neovim prefers. optional and message are never both given.
local new_validate = vim.fn.has("nvim-0.11") == 1

---@param name string
---@param value any
---@param validator string|function
---@param extra? boolean|string optional (type names) or the message (functions)
local function validate(name, value, validator, extra)
  if new_validate then
    if type(extra) == "string" then
      vim.validate(name, value, validator, false, extra)
    else
      vim.validate(name, value, validator, extra)
    end
  else
    vim.validate({ [name] = { value, validator, extra } })
  end
end

--- The problem with value as option name, or nil when it is fine:
--- "<name>: expected ..., got ..." as vim.validate words it.
local function problem(name, value, validator, extra)
  local ok, err = pcall(validate, name, value, validator, extra)
  if ok then
    return nil
  end
  -- Neovim 0.7-0.10 prefix the message with vim.validate's file:line; a
  -- table's address says nothing to the user.
  return (tostring(err):gsub("^[^\n]-:%d+: ", ""):gsub("got table: 0x%x+", "got a table"))
end

local function one_of(values)
  return function(v)
    return vim.tbl_contains(values, v)
  end, "one of " .. table.concat(values, ", ")
end

-- A non-empty list whose items are all strings (and nothing else in it).
local function list_of_strings(v)
  if type(v) ~= "table" or #v == 0 then
    return false
  end
  local n = 0
  for _, x in pairs(v) do
    if type(x) ~= "string" then
      return false
    end
    n = n + 1
  end
  return n == #v
end

-- The rules, in the order they are checked: option name (dotted for nested
-- ones), validator, and vim.validate's third argument. An option that breaks
-- its rule is reported and gets its default.
-- The CLI's --permission-mode values (internal/permmode.Modes).
local PERMISSION_MODES = { "default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions" }
local provider_ok, provider_msg = one_of({ "native", "snacks", "external", "none" })
local rules = {
  { "bin", "string", true },
  { "auto_start", "boolean" },
  { "model_tools", "boolean" },
  { "tabline", "boolean" },
  { "permissions", "boolean" },
  {
    "exclude",
    function(v)
      if v == nil then
        return true
      end
      if type(v) ~= "table" then
        return false
      end
      for k, x in pairs(v) do
        if type(k) ~= "number" or type(x) ~= "string" then
          return false
        end
      end
      return true
    end,
    "a list of globs (strings)",
  },
  {
    "terminal_cmd",
    function(v)
      if type(v) == "string" then
        return v ~= ""
      end
      return list_of_strings(v)
    end,
    "a non-empty string or list of strings",
  },
  { "track_selection", "boolean" },
  {
    "selection_debounce_ms",
    function(v)
      return type(v) == "number" and v >= 0 and v == math.floor(v)
    end,
    "a whole number of milliseconds >= 0",
  },
  { "ide_name", "string", true },
  {
    "permission_mode",
    function(v)
      return v == nil or v == false or vim.tbl_contains(PERMISSION_MODES, v)
    end,
    "false or one of " .. table.concat(PERMISSION_MODES, ", "),
  },
  { "terminal.provider", provider_ok, provider_msg },
  { "terminal.split", "string" },
  {
    "terminal.size",
    function(v)
      return type(v) == "number" and v > 0 and v <= 1
    end,
    "a fraction of the screen in (0, 1]",
  },
  { "terminal.float", "boolean" },
  { "terminal.external_cmd", "string", true },
  { "terminal.snacks_win", "table", true },
  { "terminal.sessions", one_of({ "one", "tab" }) },
  { "install.base_url", "string" },
  { "diff.layout", one_of({ "vertical", "horizontal", "unified" }) },
  { "diff.open_in_new_tab", "boolean" },
  { "diff.keep_terminal_focus", "boolean" },
}

-- remote is checked as a whole: a remote half right would run the bridge
-- somewhere the user did not mean.
local function remote_ok(v)
  if v == false or v == nil then
    return true
  end
  if type(v) ~= "table" or not list_of_strings(v.cmd) then
    return false
  end
  for k in pairs(v) do
    if not (k == "cmd" or k == "path_map" or k == "bin" or k == "terminal_cmd" or k == "shell") then
      return false
    end
  end
  local map_ok = v.path_map == nil or type(v.path_map) == "table"
  for l, r in pairs(type(v.path_map) == "table" and v.path_map or {}) do
    map_ok = map_ok and type(l) == "string" and type(r) == "string"
  end
  return map_ok
    and (v.bin == nil or type(v.bin) == "string")
    and (v.terminal_cmd == nil or list_of_strings(v.terminal_cmd))
    and (v.shell == nil or type(v.shell) == "boolean")
end
local REMOTE_MSG = "false, or { cmd = { \"ssh\", \"host\" }, path_map? = { [LOCAL] = REMOTE }, bin? = string,"
  .. " terminal_cmd? = list of strings, shell? = boolean }"

-- The tables whose keys are options of their own.
local groups = { terminal = true, install = true, diff = true }

local function get(o, name)
  local g, k = name:match("^(%w+)%.([%w_]+)$")
  if g then
    return o[g][k]
  end
  return o[name]
end

local function put(o, name, v)
  local g, k = name:match("^(%w+)%.([%w_]+)$")
  if g then
    o[g][k] = v
  else
    o[name] = v
  end
end

--- Merges user options over the defaults and checks each one with
--- vim.validate. Never raises: an option that is unknown or breaks its rule
--- is left out (its default applies) and listed in the problems, each
--- "<option>: expected ..., got ..." or "<option>: no such option". Two
--- exceptions, because the default would do something the user did not ask
--- for: a bad `remote` also turns auto_start off (a local bridge would show
--- Claude this machine's files), and provider "external" without a usable
--- external_cmd falls back to "native". The result is the options in force
--- (state.options).
---@param user? claude-ide-bridge.Config
---@return claude-ide-bridge.Config options, string[] problems
function M.set(user)
  local problems = {}
  if user == nil then
    user = {}
  elseif type(user) ~= "table" then
    problems[1] = ("setup(): expected a table of options, got %s"):format(type(user))
    user = {}
  end
  local o = vim.deepcopy(M.defaults)
  for k, v in pairs(user) do
    if not known[k] then
      problems[#problems + 1] = tostring(k) .. ": no such option"
    elseif groups[k] then
      local err = problem(k, v, "table")
      if err then
        problems[#problems + 1] = err
      else
        local allowed = ({ terminal = known_terminal, install = known_install, diff = known_diff })[k]
        for sk, sv in pairs(v) do
          if allowed[sk] then
            o[k][sk] = sv
          else
            problems[#problems + 1] = k .. "." .. tostring(sk) .. ": no such option"
          end
        end
      end
    else
      o[k] = v
    end
  end
  for _, r in ipairs(rules) do
    local err = problem(r[1], get(o, r[1]), r[2], r[3])
    if err then
      problems[#problems + 1] = err
      put(o, r[1], vim.deepcopy(get(M.defaults, r[1])))
    end
  end
  if o.terminal.provider == "external" then
    local err = problem("terminal.external_cmd", o.terminal.external_cmd, function(v)
      return type(v) == "string" and v:find("%s", 1, true) ~= nil
    end, "a command line with %s for the CLI's (needed by provider external; the native terminal is used)")
    if err then
      problems[#problems + 1] = err
      o.terminal.provider, o.terminal.external_cmd = "native", nil
    end
  end
  local err = problem("remote", o.remote, remote_ok, REMOTE_MSG)
  if err then
    problems[#problems + 1] = err .. " (the bridge is not started: fix remote, then :ClaudeCodeStart)"
    o.remote, o.auto_start = false, false
  end
  state.options, state.option_problems = o, problems
  return o, problems
end

--- The name in the CLI's /ide list: the ide_name option, else "Neovim (<cwd basename>)".
---@return string
function M.ide_name()
  local name = state.options.ide_name
  if name and name ~= "" then
    return name
  end
  local cwd = vim.fn.getcwd(-1, -1)
  local base = vim.fn.fnamemodify(cwd, ":t")
  if base == "" then
    base = cwd
  end
  return "Neovim (" .. base .. ")"
end

return M
