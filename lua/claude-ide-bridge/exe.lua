-- Finding the bridge binary the plugin runs by name: on $PATH, skipping
-- relative entries and entries inside the workspace, and never a program that
-- lies inside it, as the bridge finds claude's and a language server's
-- (docs/security.md section 15). The workspace's files are Claude's to write:
-- a program taken from them would let a write run code.
local M = {}

local uv = vim.uv or vim.loop

local function within(root, p)
  return p == root or p:sub(1, #root + 1) == root .. "/"
end

local function inside(p, folders)
  local real = uv.fs_realpath(p) or p
  for _, f in ipairs(folders) do
    if within(uv.fs_realpath(f) or f, real) then
      return true
    end
  end
  return false
end

--- The path to run for name: a name with a "/" as it is (the user's own
--- setting), a bare one from $PATH outside folders; nil if none is found.
--- On Windows, Neovim's own search (exepath).
---@param name string
---@param folders string[] the workspace folders
---@return string|nil
function M.find(name, folders)
  if name:find("/", 1, true) then
    return name
  end
  if vim.fn.has("win32") == 1 then
    local p = vim.fn.exepath(name)
    return p ~= "" and p or nil
  end
  for dir in ((vim.env.PATH or "") .. ":"):gmatch("([^:]*):") do
    if dir:sub(1, 1) == "/" and not inside(dir, folders) then
      local p = dir:gsub("/+$", "") .. "/" .. name
      if vim.fn.executable(p) == 1 and vim.fn.isdirectory(p) == 0 and not inside(p, folders) then
        return p
      end
    end
  end
  return nil
end

return M
