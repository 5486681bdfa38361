-- :ClaudeCodeTreeAdd: sends the file (or directory) under the cursor in a
-- file explorer to Claude as an @-mention; with a range (Visual), every line's.
-- Each explorer is asked through its documented API:
--   netrw       netrw#Call("NetrwGetWord") and b:netrw_curdir      (tested for real)
--   nvim-tree   require("nvim-tree.api").tree.get_node_under_cursor().absolute_path
--   neo-tree    require("neo-tree.sources.manager").get_state(source).tree:get_node().path
--   oil.nvim    require("oil").get_current_dir() .. get_cursor_entry().name
--   mini.files  MiniFiles.get_fs_entry(buf, line).path
local M = {}

local function join(dir, name)
  return (dir:gsub("/+$", "")) .. "/" .. name
end

-- Each getter takes a line (1-based) of the current buffer and returns a path or nil.
local getters = {}

getters.netrw = function(line)
  local view = vim.fn.winsaveview()
  vim.api.nvim_win_set_cursor(0, { line, 0 })
  local ok, word = pcall(vim.fn["netrw#Call"], "NetrwGetWord")
  vim.fn.winrestview(view)
  if not ok or type(word) ~= "string" or word == "" or word == "../" or word == "./" then
    return nil
  end
  local dir = vim.b.netrw_curdir or vim.fn.getcwd()
  return join(dir, word)
end

getters.NvimTree = function(line)
  local api = require("nvim-tree.api")
  local view = vim.fn.winsaveview()
  vim.api.nvim_win_set_cursor(0, { line, 0 })
  local node = api.tree.get_node_under_cursor()
  vim.fn.winrestview(view)
  return node and node.absolute_path or nil
end

getters["neo-tree"] = function(line)
  local manager = require("neo-tree.sources.manager")
  local source = vim.b.neo_tree_source or "filesystem"
  local state = manager.get_state(source)
  if not (state and state.tree) then
    return nil
  end
  local view = vim.fn.winsaveview()
  vim.api.nvim_win_set_cursor(0, { line, 0 })
  local node = state.tree:get_node()
  vim.fn.winrestview(view)
  return node and (node.path or node:get_id()) or nil
end

getters.oil = function(line)
  local oil = require("oil")
  local dir = oil.get_current_dir()
  local entry = oil.get_entry_on_line(0, line)
  if not (dir and entry and entry.name) then
    return nil
  end
  return join(dir, entry.name)
end

getters.minifiles = function(line)
  local entry = _G.MiniFiles and _G.MiniFiles.get_fs_entry(vim.api.nvim_get_current_buf(), line)
  return entry and entry.path or nil
end

--- The paths on lines first..last of the current explorer buffer.
---@param first? integer
---@param last? integer
---@return string[]|nil paths, string|nil err
function M.paths(first, last)
  local ft = vim.bo.filetype
  local get = getters[ft]
  if not get then
    return nil, "not in a file tree (netrw, nvim-tree, neo-tree, oil or mini.files); this is " .. (ft ~= "" and ft or "a plain buffer")
  end
  local cur = vim.api.nvim_win_get_cursor(0)[1]
  first, last = first or cur, last or first or cur
  local out = {}
  for l = first, last do
    local ok, path = pcall(get, l)
    if ok and path then
      path = vim.fn.fnamemodify(path, ":p"):gsub("/+$", "")
      if vim.fn.filereadable(path) == 1 or vim.fn.isdirectory(path) == 1 then
        out[#out + 1] = path
      end
    end
  end
  if #out == 0 then
    return nil, "no file under the cursor"
  end
  return out
end

--- :ClaudeCodeTreeAdd.
function M.add(first, last)
  local paths, err = M.paths(first, last)
  if not paths then
    require("claude-ide-bridge.notice").show(err, vim.log.levels.WARN)
    return
  end
  for _, p in ipairs(paths) do
    require("claude-ide-bridge").at_mention(p)
  end
end

return M
