-- Finding and loading the buffer of a file path.
local M = {}

local function real(path)
  return (vim.uv or vim.loop).fs_realpath(path) or path
end

--- The buffer whose name is path (compared after resolving symlinks), or nil.
--- bufnr() is not used: it treats its argument as a pattern.
function M.find(path)
  if not path or path == "" then
    return nil
  end
  local want = real(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(buf)
    if name ~= "" and (name == path or real(name) == want) then
      return buf
    end
  end
  return nil
end

--- The loaded, listed buffer of path, as a user would call "open", or nil.
function M.find_open(path)
  local buf = M.find(path)
  if buf and vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buflisted then
    return buf
  end
  return nil
end

--- The buffer of path, created, listed and loaded if needed.
function M.load(path)
  local buf = M.find(path) or vim.fn.bufadd(path)
  vim.bo[buf].buflisted = true
  if not vim.api.nvim_buf_is_loaded(buf) then
    vim.fn.bufload(buf)
  end
  return buf
end

--- Splits text into buffer lines; a final "\n" ends the last line.
--- Returns lines and whether the text ended with a line break.
function M.split(text)
  -- A plain string.find loop: vim.split (gsplit with a plain separator) took
  -- twice as long on a 10 MiB text.
  local lines, n, pos, find, sub = {}, 0, 1, string.find, string.sub
  while true do
    local nl = find(text, "\n", pos, true)
    if not nl then
      break
    end
    n = n + 1
    lines[n] = sub(text, pos, nl - 1)
    pos = nl + 1
  end
  local len = #text
  if pos <= len or n == 0 then
    lines[n + 1] = sub(text, pos)
    return lines, false
  end
  return lines, true
end

-- Texts of this many bytes or more are put into a buffer by Neovim's own file
-- reader rather than split in Lua: for 10 MiB of source (170,000 lines) the
-- Lua split and nvim_buf_set_lines took ~140 ms of CPU for a file read from
-- disk and ~70 ms for a proposal, `:read` ~20 ms each (bench/notes.md, issue 27).
M.READ_AT = 256 * 1024

-- Reads file path into the empty buffer buf as M.split splits it: `:read
-- ++bin` takes the bytes as they are (no 'fileformat' or encoding conversion,
-- a BOM kept, CRs kept), noautocmd runs no autocommand of the user's.
-- 'cpoptions' f would name the buffer after the file read.
local function read_into(buf, path)
  local cpo = vim.o.cpoptions
  vim.o.cpoptions = cpo:gsub("f", "")
  local ok, err = pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd("silent noautocmd keepalt keepjumps 0read ++bin " .. vim.fn.fnameescape(path))
  end)
  vim.o.cpoptions = cpo
  if not ok then
    error(err, 0)
  end
  -- The buffer's own empty line is now the last.
  vim.api.nvim_buf_set_lines(buf, -2, -1, false, {})
end

-- Runs fill(buf) with buf's undo off, so the fill is not a change `u` can undo
-- (an undo right after a diff opened emptied the proposal, and `:w` accepted
-- an empty file). -123456 is the buffer-local value meaning "the global one".
local function without_undo(buf, fill)
  local ul = vim.bo[buf].undolevels
  vim.bo[buf].undolevels = -1
  local ok, res = pcall(fill)
  vim.bo[buf].undolevels = ul
  if not ok then
    error(res, 0)
  end
  return res
end

--- Fills the empty buffer buf with text, split as M.split splits it, and
--- returns whether text ended with a line break. A big text goes through a
--- private temporary file (tempname(): in Neovim's own 0700 directory),
--- removed at once.
function M.fill(buf, text, read_at)
  if #text < (read_at or M.READ_AT) then
    local lines, eol = M.split(text)
    without_undo(buf, function()
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    end)
    return eol
  end
  local tmp = vim.fn.tempname()
  local f = assert(io.open(tmp, "wb"))
  local ok, err = f:write(text)
  f:close()
  if not ok then
    os.remove(tmp)
    error(err, 0)
  end
  ok, err = pcall(without_undo, buf, function()
    read_into(buf, tmp)
  end)
  os.remove(tmp)
  if not ok then
    error(err, 0)
  end
  return text:sub(-1) == "\n"
end

--- Fills the empty buffer buf with the text of file path, as M.fill does,
--- and returns whether it ended with a line break; nil if it cannot be read.
function M.fill_from_file(buf, path, read_at)
  local f = io.open(path, "rb")
  if not f then
    return nil
  end
  local size = f:seek("end")
  if not size or size < (read_at or M.READ_AT) then
    f:seek("set")
    local text = f:read("*a")
    f:close()
    if not text then
      return nil
    end
    return M.fill(buf, text, math.huge)
  end
  f:seek("set", size - 1)
  local last = f:read(1)
  f:close()
  without_undo(buf, function()
    read_into(buf, path)
  end)
  return last == "\n"
end

--- The text of buf: its lines joined by "\n", with a final "\n" when 'eol'.
function M.text(buf)
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  return vim.bo[buf].eol and text .. "\n" or text
end

function M.basename(path)
  return vim.fn.fnamemodify(path, ":t")
end

--- Sets the filetype of buf as if it were the file path.
function M.detect_filetype(buf, path)
  vim.api.nvim_buf_call(buf, function()
    pcall(vim.cmd, "doautocmd <nomodeline> filetypedetect BufRead " .. vim.fn.fnameescape(path))
  end)
end

return M
