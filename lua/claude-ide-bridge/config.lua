-- Options, their defaults and their validation.
local state = require("claude-ide-bridge.state")

local M = {}

---@class ClaudeIdeBridgeTerminalOpts
---@field provider? "native"|"snacks"|"external"|"none" who runs the CLI (default "native")
---@field split? string native: the split command (default "botright vertical")
---@field size? number native: width (vertical) or height as a fraction of the screen (default 0.35)
---@field float? boolean native: a floating window instead of a split
---@field external_cmd? string external: a command line with %s for the CLI's command line
---@field snacks_win? table snacks: the `win` options of Snacks.terminal

---@class ClaudeIdeBridgeOpts
---@field bin? string path of the claude-ide-bridge binary (default: $PATH, then the installed copy)
---@field auto_start? boolean start the bridge in setup() (default true)
---@field terminal_cmd? string|string[] the CLI command (default "claude")
---@field terminal? ClaudeIdeBridgeTerminalOpts
---@field track_selection? boolean send the selection as it changes (default true)
---@field selection_debounce_ms? integer quiet time before a selection is sent (default 50)
---@field ide_name? string the name in the CLI's /ide list (default "Neovim (<cwd basename>)")
---@field install? { base_url?: string } where :ClaudeCodeInstall downloads releases from
---@field remote? false|{ cmd: string[], path_map?: table<string, string>, bin?: string, terminal_cmd?: string[], shell?: boolean } bridge and claude on another machine (remote.lua)

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
  -- Run the bridge and claude on another machine: { cmd = { "ssh", "host" },
  -- path_map = { [LOCAL] = REMOTE }, bin = "claude-ide-bridge" } (remote.lua).
  remote = false,
}

-- Keys allowed in the user's table (the defaults' keys include those whose default is nil).
local known = {
  bin = true, auto_start = true, terminal_cmd = true, terminal = true, track_selection = true,
  selection_debounce_ms = true, ide_name = true, install = true, remote = true, model_tools = true,
}
local known_terminal = { provider = true, split = true, size = true, float = true, external_cmd = true, snacks_win = true }
local known_install = { base_url = true }

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

local function one_of(values)
  return function(v)
    return vim.tbl_contains(values, v)
  end, "one of " .. table.concat(values, ", ")
end

local function check_keys(tbl, allowed, prefix)
  for k in pairs(tbl) do
    if not allowed[k] then
      error(prefix .. tostring(k) .. ": no such option", 0)
    end
  end
end

-- Raises "<option>: expected ..., got ..." for the first bad option.
local function validate(o)
  vim.validate({
    bin = { o.bin, "string", true },
    auto_start = { o.auto_start, "boolean" },
    model_tools = { o.model_tools, "boolean" },
    terminal_cmd = {
      o.terminal_cmd,
      function(v)
        if type(v) == "string" then
          return v ~= ""
        end
        return type(v) == "table" and #v > 0 and #vim.tbl_filter(function(x)
          return type(x) ~= "string"
        end, v) == 0
      end,
      "a non-empty string or list of strings",
    },
    terminal = { o.terminal, "table" },
    track_selection = { o.track_selection, "boolean" },
    selection_debounce_ms = {
      o.selection_debounce_ms,
      function(v)
        return type(v) == "number" and v >= 0 and v == math.floor(v)
      end,
      "a whole number of milliseconds >= 0",
    },
    ide_name = { o.ide_name, "string", true },
    install = { o.install, "table" },
    remote = {
      o.remote,
      function(v)
        return v == false or v == nil or (type(v) == "table" and type(v.cmd) == "table" and #v.cmd > 0)
      end,
      "false, or a table whose cmd is a non-empty list (e.g. { \"ssh\", \"host\" })",
    },
  })
  local t = o.terminal
  check_keys(t, known_terminal, "terminal.")
  local provider, provider_msg = one_of({ "native", "snacks", "external", "none" })
  vim.validate({
    ["terminal.provider"] = { t.provider, provider, provider_msg },
    ["terminal.split"] = { t.split, "string" },
    ["terminal.size"] = {
      t.size,
      function(v)
        return type(v) == "number" and v > 0 and v <= 1
      end,
      "a fraction of the screen in (0, 1]",
    },
    ["terminal.float"] = { t.float, "boolean" },
    ["terminal.external_cmd"] = {
      t.external_cmd,
      function(v)
        if t.provider == "external" then
          return type(v) == "string" and v:find("%s", 1, true) ~= nil
        end
        return v == nil or type(v) == "string"
      end,
      "a command line with %s for the CLI's (needed by provider external)",
    },
    ["terminal.snacks_win"] = { t.snacks_win, "table", true },
  })
  check_keys(o.install, known_install, "install.")
  vim.validate({ ["install.base_url"] = { o.install.base_url, "string" } })
end

--- Merges user options over the defaults and validates them. A bad option is
--- an error naming it: "claude-ide-bridge: option terminal.size: expected ...".
---@param user? ClaudeIdeBridgeOpts
---@return ClaudeIdeBridgeOpts
function M.set(user)
  user = user or {}
  if type(user) ~= "table" then
    error("claude-ide-bridge: setup() takes a table of options, got " .. type(user), 3)
  end
  local merged = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), user)
  local ok, err = pcall(function()
    check_keys(user, known, "")
    validate(merged)
  end)
  if not ok then
    -- vim.validate's messages start with the option's name (and on 0.7 a file:line).
    local msg = tostring(err):gsub("^[^\n]-:%d+: ", "")
    error("claude-ide-bridge: option " .. msg, 3)
  end
  state.options = merged
  return merged
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
