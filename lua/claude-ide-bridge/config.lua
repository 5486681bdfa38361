-- Options and their defaults.
local M = {}

M.defaults = {
  -- Path of the claude-ide-bridge binary; nil: found on PATH.
  bin = nil,
  -- Start the bridge when setup() runs.
  auto_start = true,
  -- Command run in the :ClaudeCode terminal (a string for the shell, or a list).
  terminal_cmd = "claude",
  -- Where :ClaudeCode opens its split, and its width as a fraction of the screen.
  terminal = { split = "botright vertical", size = 0.35 },
  -- Send selectionChanged as the cursor and Visual selection move.
  track_selection = true,
  -- Quiet time before a selection change is sent.
  selection_debounce_ms = 50,
  -- The editor name Claude shows.
  ide_name = "Neovim",
  -- :ClaudeCode registers the code tools (definition, references, ...: the
  -- bridge's MCP server, answered by this Neovim's language servers).
  model_tools = true,
  -- Run the bridge and claude on another machine: { cmd = { "ssh", "host" },
  -- path_map = { [LOCAL] = REMOTE }, bin = "claude-ide-bridge" } (remote.lua).
  remote = false,
}

M.options = vim.deepcopy(M.defaults)

--- Merges user options over the defaults; unknown keys are an error.
function M.set(user)
  user = user or {}
  for k in pairs(user) do
    if M.defaults[k] == nil and k ~= "bin" then
      error(("claude-ide-bridge: unknown option %q"):format(k), 3)
    end
  end
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), user)
  return M.options
end

return M
