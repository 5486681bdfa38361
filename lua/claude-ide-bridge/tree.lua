-- :ClaudeCodeTreeAdd: sends the file (or directory) under the cursor in a
-- file explorer to Claude as an @-mention; with a range (Visual), every line's.
-- Each explorer is asked through its documented API:
--   netrw       netrw#Call("NetrwGetWord") and b:netrw_curdir      (tested for real)
--   nvim-tree   require("nvim-tree.api").tree.get_node_under_cursor().absolute_path
--   neo-tree    require("neo-tree.sources.manager").get_state(source).tree:get_node().path
--   oil.nvim    require("oil").get_current_dir() .. get_cursor_entry().name
--   mini.files  MiniFiles.get_fs_entry(buf, line).path
--   snacks      Snacks.picker.get({ tab = true }): the picker whose list window is current (the
--               explorer, or a files/grep picker), its :selected({ fallback = true }) items'
--               file (against item.cwd when relative); Tab-selected items all go
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

-- snacks pickers (filetype snacks_picker_list): the selection is the
-- picker's, not lines, so the range is not used.
local function snacks_paths()
  local ok, snacks = pcall(require, "snacks")
  if not ok or type(snacks) ~= "table" or not snacks.picker then
    return nil, "snacks.nvim is not loaded"
  end
  local pickers = snacks.picker.get({ tab = true }) or {}
  local win, picker = vim.api.nvim_get_current_win(), nil
  for _, p in ipairs(pickers) do
    if p.list and p.list.win and p.list.win.win == win then
      picker = p
    end
  end
  picker = picker or pickers[#pickers]
  if not picker then
    return nil, "no snacks picker is open"
  end
  local out = {}
  for _, item in ipairs(picker:selected({ fallback = true }) or {}) do
    local f = type(item) == "table" and item.file
    if type(f) == "string" and f ~= "" then
      if f:sub(1, 1) ~= "/" and type(item.cwd) == "string" then
        f = join(item.cwd, f)
      end
      out[#out + 1] = f
    end
  end
  return out
end

--- The paths on lines first..last of the current explorer buffer.
---@param first? integer
---@param last? integer
---@return string[]|nil paths, string|nil err
function M.paths(first, last)
  local ft = vim.bo.filetype
  local get = getters[ft]
  local found
  if ft == "snacks_picker_list" then
    local err
    found, err = snacks_paths()
    if not found then
      return nil, err
    end
  elseif not get then
    return nil, "not in a file tree (netrw, nvim-tree, neo-tree, oil, mini.files or a snacks explorer/picker); this is " .. (ft ~= "" and ft or "a plain buffer")
  else
    found = {}
    local cur = vim.api.nvim_win_get_cursor(0)[1]
    first, last = first or cur, last or first or cur
    for l = first, last do
      local ok, path = pcall(get, l)
      found[#found + 1] = ok and path or false
    end
  end
  local out = {}
  for _, path in ipairs(found) do
    if path then
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
    require("claude-ide-bridge.bridge").at_mention(p)
  end
end

return M
