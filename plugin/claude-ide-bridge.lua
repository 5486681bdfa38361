-- Commands exist as soon as the plugin is on 'runtimepath'; the bridge
-- starts with require("claude-ide-bridge").setup() or :ClaudeCodeStart.
if vim.g.loaded_claude_ide_bridge then
  return
end
vim.g.loaded_claude_ide_bridge = true

if vim.fn.has("nvim-0.7") == 0 then
  vim.api.nvim_err_writeln("claude-ide-bridge needs Neovim 0.7 or newer")
  return
end

require("claude-ide-bridge.commands").create()
