-- Readable tab labels. Neovim's own tabline labels a tab by its current
-- window's buffer name with every folder cut to one letter: the Claude
-- terminal (term://~/proj//1234:claude --mcp-config /tmp/...) and a diff's
-- proposal (claude-ide-bridge://proposed/...) become strings like
-- t///t/n/g//2/t/n/n/.c/i/31735.mcp.json. setup() sets 'tabline' to render()
-- when the user has none (option tabline = false leaves it alone); it draws
-- what the default draws (window count, + for a modified buffer, the close X)
-- with these labels:
--   Claude's terminal   its buffer name, "Claude Code" (terminal.lua)
--   a diff              "Diff <file name>", "Diff <file name> (Gemini)" for another agent's
--   anything else       the default's shortened buffer name
local M = {}

--- The label of tab page tab.
---@param tab integer
---@return string
function M.label(tab)
  local win = vim.api.nvim_tabpage_get_win(tab)
  local buf = vim.api.nvim_win_get_buf(win)
  local d = require("claude-ide-bridge.diff").for_buf(buf)
  if d then
    return "Diff " .. vim.fn.fnamemodify(d.file_path, ":t") .. (d.who ~= "Claude" and (" (" .. d.who .. ")") or "")
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if vim.b[buf].claude_ide_bridge_terminal then
    return vim.fn.fnamemodify(name, ":t")
  end
  if name == "" then
    return vim.bo[buf].buftype == "quickfix" and "[Quickfix List]" or "[No Name]"
  end
  if vim.bo[buf].buftype == "help" then
    return vim.fn.fnamemodify(name, ":t")
  end
  if name:find("^%a[%w+.-]*://") then
    -- A URL-like name (health://, fugitive://...): its last part, or all of
    -- it, never cut to letters (h//).
    local tail = name:match("([^/]+)$")
    return (tail and not tail:find(":$")) and tail or name
  end
  return vim.fn.pathshorten(vim.fn.fnamemodify(name, ":~:."))
end

--- The 'tabline' string (%!v:lua.require'claude-ide-bridge.tabline'.render()).
---@return string
function M.render()
  local cur = vim.api.nvim_get_current_tabpage()
  local parts = {}
  for i, tab in ipairs(vim.api.nvim_list_tabpages()) do
    local wins, modified = 0, false
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
      if vim.api.nvim_win_get_config(w).relative == "" then
        wins = wins + 1
        local b = vim.api.nvim_win_get_buf(w)
        modified = modified or (vim.bo[b].modified and vim.bo[b].buftype ~= "terminal")
      end
    end
    local flags = (wins > 1 and tostring(wins) or "") .. (modified and "+" or "")
    parts[#parts + 1] = (tab == cur and "%#TabLineSel#" or "%#TabLine#") .. "%" .. i .. "T "
      .. (flags ~= "" and (flags .. " ") or "") .. M.label(tab):gsub("%%", "%%%%") .. " "
  end
  local s = table.concat(parts) .. "%#TabLineFill#%T"
  if #vim.api.nvim_list_tabpages() > 1 then
    s = s .. "%=%#TabLine#%999XX"
  end
  return s
end

M.OPTION = "%!v:lua.require'claude-ide-bridge.tabline'.render()"

--- Sets 'tabline' to render() when the user has none.
function M.install()
  if vim.o.tabline == "" then
    vim.o.tabline = M.OPTION
  end
end

return M
