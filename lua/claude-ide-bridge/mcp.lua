-- The claude command line that registers the bridge's code tools (its MCP
-- server at /mcp, docs/model-tools.md) with the CLI.
local config = require("claude-ide-bridge.config")

local M = {}

--- The arguments that register the code tools: {"--mcp-config", path}, where
--- path is the bridge's 0600 config file (the token never appears on a
--- command line). Empty when the option model_tools is false or the bridge
--- gave no file.
function M.args(info)
  if config.options.model_tools == false or type(info) ~= "table" or type(info.mcpConfig) ~= "string" or info.mcpConfig == "" then
    return {}
  end
  return { "--mcp-config", info.mcpConfig }
end

--- cmd (a shell string or a list, as terminal_cmd) with M.args(info) added.
function M.with_config(cmd, info)
  local args = M.args(info)
  if #args == 0 then
    return cmd
  end
  if type(cmd) == "table" then
    local out = vim.deepcopy(cmd)
    vim.list_extend(out, args)
    return out
  end
  local quoted = {}
  for _, a in ipairs(args) do
    quoted[#quoted + 1] = vim.fn.shellescape(a)
  end
  return cmd .. " " .. table.concat(quoted, " ")
end

return M
