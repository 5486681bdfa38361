-- Selection encoding: how a Neovim cursor or Visual selection becomes the
-- {text, selection = {start, end, isEmpty}} that Claude receives.
--
-- Positions are 0-based lines and 0-based UTF-8 byte offsets; `end` is
-- exclusive. encode() is pure apart from asking the running Neovim how long a
-- character is (byteidx) and how wide it is (strwidth), so that "a character"
-- is what this Neovim's y takes as one. read() gathers the inputs from the
-- editor and calls encode().
local M = {}

-- getcurpos() reports this curswant after `$`.
local MAXCOL = 2147483647

local CTRL_V = "\22"

-- Select mode uses the encoding of the Visual mode of the same type.
local MODES = {
  v = "v", V = "V", [CTRL_V] = CTRL_V,
  s = "v", S = "V", ["\19"] = CTRL_V,
}

--- Visual type ("v", "V", "\22") of a mode() string, or nil when not Visual/Select.
function M.visual_type(mode)
  return MODES[mode:sub(1, 1)]
end

local function pos(line, character)
  return { line = line, character = character }
end

-- Byte length of the character at 0-based byte `col`, composing characters
-- (and on newer Neovim the grapheme cluster) included; 0 at the line end.
local function char_len(line, col)
  if col >= #line then
    return 0
  end
  local n = vim.fn.byteidx(line:sub(col + 1), 1)
  return n > 0 and n or #line - col
end

-- Screen cells of the character `ch` starting at screen column `vcol`.
local function cell_width(ch, vcol, tabstop)
  if ch == "\t" then
    return tabstop - (vcol % tabstop)
  end
  return math.max(vim.fn.strwidth(ch), 1)
end

-- Calls fn(byte_start, byte_end, vcol_start, vcol_end) for each character;
-- vcol_end is the last screen column the character covers. Stops when fn
-- returns a value and returns it; otherwise returns nil and the line's width.
local function each_char(line, tabstop, fn)
  local col, vcol = 0, 0
  while col < #line do
    local len = char_len(line, col)
    local w = cell_width(line:sub(col + 1, col + len), vcol, tabstop)
    local r = fn(col, col + len, vcol, vcol + w - 1)
    if r ~= nil then
      return r
    end
    col, vcol = col + len, vcol + w
  end
  return nil, vcol
end

local function none() end

-- Screen columns {first, last} of position p ({col, off}) in line; past the
-- line end (the line break, or a virtual column) it is one cell.
local function vspan(line, p, tabstop)
  if p.col >= #line then
    local _, width = each_char(line, tabstop, none)
    local v = width + (p.off or 0)
    return v, v
  end
  local r = each_char(line, tabstop, function(b, _, vs, ve)
    if b >= p.col then
      return { vs, ve }
    end
  end)
  return r[1], r[2]
end

-- Text from (sl, sc) to (el, ec), end exclusive, lines joined by "\n".
local function span_text(lines, sl, sc, el, ec)
  if el < sl or (el == sl and ec <= sc) then
    return ""
  end
  if sl == el then
    return lines[sl + 1]:sub(sc + 1, ec)
  end
  local parts = { lines[sl + 1]:sub(sc + 1) }
  for l = sl + 1, el - 1 do
    parts[#parts + 1] = lines[l + 1]
  end
  parts[#parts + 1] = (lines[el + 1] or ""):sub(1, ec)
  return table.concat(parts, "\n")
end

local function before(a, b)
  return a.line < b.line or (a.line == b.line and a.col < b.col)
end

local function charwise(a, c, lines, opts)
  local first, last = a, c
  if before(c, a) then
    first, last = c, a
  end
  local fline = lines[first.line + 1]
  local start = pos(first.line, math.min(first.col, #fline))
  local line = lines[last.line + 1]
  local finish
  local several = first.line ~= last.line or first.col ~= last.col
  if opts.selection == "exclusive" and several then
    -- Ends after the character before the end position.
    finish = pos(last.line, math.min(last.col, #line))
  elseif last.col < #line then
    finish = pos(last.line, last.col + char_len(line, last.col))
  elseif last.line + 1 >= opts.line_count or opts.virtualedit_all then
    -- v$ (or a cursor on the line end) where y takes no line break.
    finish = pos(last.line, #line == 0 and 1 or #line)
  else
    -- The line break is selected: end at the start of the next line.
    finish = pos(last.line + 1, 0)
  end
  return start, finish
end

local function linewise(a, c, lines, opts)
  local sl, el = math.min(a.line, c.line), math.max(a.line, c.line)
  local line = lines[el + 1]
  if #line > 0 then
    return pos(sl, 0), pos(el, #line)
  end
  if el + 1 >= opts.line_count then
    return pos(sl, 0), pos(el, 1)
  end
  return pos(sl, 0), pos(el + 1, 0)
end

-- The start byte of line's first character that reaches screen column vcol
-- (its end byte with after), or the line's length when none does.
local function byte_at(line, ts, vcol, after)
  return each_char(line, ts, function(b, e, _, ve)
    if ve >= vcol then
      return after and e or b
    end
  end) or #line
end

local function blockwise(a, c, lines, opts)
  local ts = opts.tabstop
  local top, bottom = math.min(a.line, c.line), math.max(a.line, c.line)
  local avs, ave = vspan(lines[a.line + 1], a, ts)
  local cvs, cve = vspan(lines[c.line + 1], c, ts)
  local left = math.min(avs, cvs)
  local several = a.line ~= c.line or a.col ~= c.col
  local exclusive = opts.selection == "exclusive" and several

  local start = pos(top, byte_at(lines[top + 1], ts, left))

  local bline = lines[bottom + 1]
  if #bline == 0 then
    return start, pos(bottom, 1)
  end
  if opts.curswant == MAXCOL then
    return start, pos(bottom, #bline)
  end
  if exclusive then
    -- The block's right edge is the screen column of its rightmost corner,
    -- not included: end after the character before it.
    return start, pos(bottom, byte_at(bline, ts, math.max(avs, cvs)))
  end
  return start, pos(bottom, byte_at(bline, ts, math.max(ave, cve), true))
end

--- Encodes a selection.
---
--- mode: a mode() string; anything but Visual or Select is "cursor only".
--- anchor, cursor: {line = 0-based, col = 0-based byte, off = virtual offset}
---   (getpos("v") and getpos(".") minus one); for cursor only, anchor is ignored.
--- lines: the buffer's lines, a 1-based list (lines[1] is line 0); only the
---   lines between anchor and cursor are read.
--- opts: {line_count, selection = 'selection', virtualedit_all = bool,
---   curswant = getcurpos()[5], tabstop}.
---
--- Returns {text, selection = {start, end, isEmpty}}.
function M.encode(mode, anchor, cursor, lines, opts)
  opts = opts or {}
  opts.line_count = opts.line_count or #lines
  opts.tabstop = opts.tabstop or 8
  local vtype = M.visual_type(mode or "n")
  local start, finish
  if vtype == "v" then
    start, finish = charwise(anchor, cursor, lines, opts)
  elseif vtype == "V" then
    start, finish = linewise(anchor, cursor, lines, opts)
  elseif vtype == CTRL_V then
    start, finish = blockwise(anchor, cursor, lines, opts)
  else
    local p = pos(cursor.line, cursor.col)
    return { text = "", selection = { start = p, ["end"] = pos(p.line, p.character), isEmpty = true } }
  end
  local text = span_text(lines, start.line, start.character, finish.line, finish.character)
  local empty = start.line == finish.line and start.character == finish.character
  return { text = text, selection = { start = start, ["end"] = finish, isEmpty = empty } }
end

-- Lines of buf, fetched on first use (only the selected range is read).
local function lazy_lines(buf)
  return setmetatable({}, {
    __index = function(t, i)
      local l = vim.api.nvim_buf_get_lines(buf, i - 1, i, false)[1] or ""
      rawset(t, i, l)
      return l
    end,
  })
end

--- Reads the selection (or cursor) of window win (default current) now.
--- Returns the encode() result plus filePath, or nil for a buffer that is not
--- a named file (terminals, scratch buffers, diff proposals).
function M.read(win)
  win = win or vim.api.nvim_get_current_win()
  local buf = vim.api.nvim_win_get_buf(win)
  local name = vim.api.nvim_buf_get_name(buf)
  if name == "" or vim.bo[buf].buftype ~= "" then
    return nil
  end
  local mode = "n"
  local anchor, cursor
  local curswant = 0
  if win == vim.api.nvim_get_current_win() then
    mode = vim.api.nvim_get_mode().mode
    local v = vim.fn.getpos("v")
    local c = vim.fn.getcurpos()
    anchor = { line = v[2] - 1, col = v[3] - 1, off = v[4] }
    cursor = { line = c[2] - 1, col = c[3] - 1, off = c[4] }
    curswant = c[5]
  else
    local c = vim.api.nvim_win_get_cursor(win)
    cursor = { line = c[1] - 1, col = c[2], off = 0 }
    anchor = cursor
  end
  local ve = vim.api.nvim_win_call(win, function()
    return vim.o.virtualedit
  end)
  local out = M.encode(mode, anchor, cursor, lazy_lines(buf), {
    line_count = vim.api.nvim_buf_line_count(buf),
    selection = vim.o.selection,
    virtualedit_all = ve:find("all", 1, true) ~= nil,
    curswant = curswant,
    tabstop = vim.bo[buf].tabstop,
  })
  out.filePath = name
  return out
end

return M
