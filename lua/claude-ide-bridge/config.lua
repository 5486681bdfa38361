-- Options, their defaults and their validation.
local state = require("claude-ide-bridge.state")

local M = {}

---@class claude-ide-bridge.TerminalConfig
---@field provider? "native"|"snacks"|"external"|"none" who runs the CLI
---@field split? string native: the split command
---@field size? number native: width (vertical) or height as a fraction of the screen, in (0, 1]
---@field float? boolean native: a floating window instead of a split
---@field external_cmd? string external: a command line with %s for the CLI's command line
---@field snacks_win? table snacks: the `win` options of Snacks.terminal
---@field sessions? "one"|"tab" native: one claude, or one per tab page

---@class claude-ide-bridge.DiffConfig
---@field layout? "vertical"|"horizontal"|"unified" side by side, one above the other, or the proposal alone with the removed lines shown above the changes
---@field open_in_new_tab? boolean a tab page of its own, else in the current tab beside your file
---@field keep_terminal_focus? boolean a diff never takes the focus (false: only while you type)

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
---@field auto_start? boolean start the bridge in setup()
---@field terminal_cmd? string|string[] the CLI command
---@field terminal? claude-ide-bridge.TerminalConfig
---@field track_selection? boolean send the selection as it changes
---@field selection_debounce_ms? integer quiet time before a selection is sent
---@field ide_name? string the name in the CLI's /ide list
---@field install? claude-ide-bridge.InstallConfig
---@field diff? claude-ide-bridge.DiffConfig how diffs are shown
---@field model_tools? boolean :ClaudeCode registers the code tools with the CLI
---@field permission_mode? false|"default"|"acceptEdits"|"plan"|"auto"|"dontAsk"|"bypassPermissions" the CLI's mode
---@field remote? false|claude-ide-bridge.RemoteConfig bridge and claude on another machine
---@field tabline? boolean set 'tabline' to readable labels for Claude's tabs when it is empty
---@field exclude? string[] globs of files never shared with Claude
---@field permissions? boolean|{ tools: string[] } Claude's permission prompts are asked here too ({ tools = { "Bash", "mcp__*" } }: only those tools')
---@field codex_ide? boolean the bridge answers the Codex CLI's /ide with this context

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

-- The CLI's --permission-mode values: internal/permmode.Modes (a test/nvim test keeps them equal).
local PERMISSION_MODES = { "default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions" }
local provider_ok, provider_msg = one_of({ "native", "snacks", "external", "none" })

local function whole_ms(v)
  return type(v) == "number" and v >= 0 and v == math.floor(v)
end

local function fraction(v)
  return type(v) == "number" and v > 0 and v <= 1
end

local function globs(v)
  if type(v) ~= "table" then
    return v == nil
  end
  for k, x in pairs(v) do
    if type(k) ~= "number" or type(x) ~= "string" then
      return false
    end
  end
  return true
end

local function command(v)
  return v ~= "" and (type(v) == "string" or list_of_strings(v))
end

-- true, false, or { tools = { "Bash", "mcp__*" } } (a trailing * matches a prefix).
local function permissions(v)
  return type(v) == "boolean"
    or (type(v) == "table" and list_of_strings(v.tools) and not vim.tbl_contains(v.tools, "") and vim.tbl_count(v) == 1)
end

local function permission_mode(v)
  return v == nil or v == false or vim.tbl_contains(PERMISSION_MODES, v)
end

--- Every option, declared once, in the order they are checked: its name
--- (dotted in a group), its default, and its rule (vim.validate's validator
--- and third argument). The defaults, the names setup() accepts and the
--- help's table of defaults all come from (or are checked against) this
--- list: test/nvim/options_test.go. :help claude-ide-bridge-options says
--- what each does.
M.OPTIONS = {
  { "bin", nil, "string", true },
  { "auto_start", true, "boolean" },
  { "terminal_cmd", "claude", command, "a non-empty string or list of strings" },
  { "terminal.provider", "native", provider_ok, provider_msg },
  { "terminal.split", "botright vertical", "string" },
  { "terminal.size", 0.35, fraction, "a fraction of the screen in (0, 1]" },
  { "terminal.float", false, "boolean" },
  { "terminal.external_cmd", nil, "string", true },
  { "terminal.snacks_win", nil, "table", true },
  { "terminal.sessions", "one", one_of({ "one", "tab" }) },
  { "diff.layout", "vertical", one_of({ "vertical", "horizontal", "unified" }) },
  { "diff.open_in_new_tab", true, "boolean" },
  { "diff.keep_terminal_focus", false, "boolean" },
  { "track_selection", true, "boolean" },
  { "selection_debounce_ms", 50, whole_ms, "a whole number of milliseconds >= 0" },
  -- nil: "Neovim (<basename of the working directory when the bridge starts>)".
  { "ide_name", nil, "string", true },
  { "install.base_url", "https://github.com/claude-ide-bridge/claude-ide-bridge/releases/download", "string" },
  { "model_tools", true, "boolean" },
  -- nil: "default" unless the arguments or the Claude settings choose a mode.
  { "permission_mode", nil, permission_mode, "false or one of " .. table.concat(PERMISSION_MODES, ", ") },
  -- A bad remote also turns auto_start off (M.set).
  { "remote", false, remote_ok, REMOTE_MSG },
  { "tabline", true, "boolean" },
  -- nil: the bridge's default globs (.env, .env.*, *.pem, ...); {}: share all.
  { "exclude", nil, globs, "a list of globs (strings)" },
  { "permissions", true, permissions, 'a boolean or { tools = { "Bash", "mcp__*", ... } }' },
  -- The bridge also answers the Codex CLI's /ide (docs/codex.md).
  { "codex_ide", false, "boolean" },
}

-- The defaults and the names setup() accepts, from M.OPTIONS: known[name]
-- is true for an option, a table of its options' names for a group.
---@type claude-ide-bridge.Config
M.defaults = {}
local known = {}
for _, opt in ipairs(M.OPTIONS) do
  local g, k = opt[1]:match("^(%w+)%.([%w_]+)$")
  if g then
    M.defaults[g] = M.defaults[g] or {}
    M.defaults[g][k] = opt[2]
    known[g] = known[g] or {}
    known[g][k] = true
  else
    M.defaults[opt[1]] = opt[2]
    known[opt[1]] = true
  end
end

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

-- The table of o that holds option name ("terminal.size": o.terminal), and its key there.
local function slot(o, name)
  local g, k = name:match("^(%w+)%.([%w_]+)$")
  if g then
    return o[g], k
  end
  return o, name
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
    elseif type(known[k]) == "table" then
      local err = problem(k, v, "table")
      if err then
        problems[#problems + 1] = err
      else
        for sk, sv in pairs(v) do
          if known[k][sk] then
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
  for _, r in ipairs(M.OPTIONS) do
    local t, key = slot(o, r[1])
    local err = problem(r[1], t[key], r[3], r[4])
    if err then
      if r[1] == "remote" then
        err = err .. " (the bridge is not started: fix remote, then :ClaudeCodeStart)"
        o.auto_start = false
      end
      problems[#problems + 1] = err
      t[key] = vim.deepcopy(r[2])
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

--- The askPermission capability the bridge is told: true, false or the tool names.
---@return boolean|string[]
function M.ask_permission()
  local p = M.options.permissions
  if type(p) == "table" then
    return p.tools
  end
  return p ~= false
end

return M
