vim9script
# Selection encoding: how a Vim cursor or Visual selection becomes the
# {text, selection: {start, end, isEmpty}} Claude receives
# (docs/editor-protocol.md, the spec's Selection table). Positions are 0-based
# lines and 0-based UTF-8 byte offsets; end is exclusive. A character is what
# Vim's y takes as one: a code point with its composing characters (byteidx).

const MAXCOL = 2147483647

# Visual type ('v', 'V', "\<C-V>") of a mode() string; '' outside Visual/Select.
export def VisualType(mode: string): string
  return get({v: 'v', V: 'V', "\<C-V>": "\<C-V>", s: 'v', S: 'V', "\<C-S>": "\<C-V>"}, mode[0], '')
enddef

def Pos(line: number, character: number): dict<number>
  return {line: line, character: character}
enddef

# Byte length of the character at byte col of line; 0 at the line end.
def CharLen(line: string, col: number): number
  if col >= len(line)
    return 0
  endif
  var n = byteidx(strpart(line, col), 1)
  return n <= 0 ? len(line) - col : n
enddef

def CellWidth(ch: string, vcol: number, ts: number): number
  if ch == "\t"
    return ts - (vcol % ts)
  endif
  return max([strwidth(ch), 1])
enddef

# [byte start, byte end, first screen column, last screen column] of each character.
def Chars(line: string, ts: number): list<list<number>>
  var out: list<list<number>> = []
  var col = 0
  var vcol = 0
  while col < len(line)
    var n = CharLen(line, col)
    var w = CellWidth(strpart(line, col, n), vcol, ts)
    add(out, [col, col + n, vcol, vcol + w - 1])
    col += n
    vcol += w
  endwhile
  return out
enddef

def Width(line: string, ts: number): number
  var cs = Chars(line, ts)
  return empty(cs) ? 0 : cs[-1][3] + 1
enddef

# Screen columns [first, last] of position p in line; past its end one cell.
def VSpan(line: string, p: dict<number>, ts: number): list<number>
  if p.col >= len(line)
    var v = Width(line, ts) + p.off
    return [v, v]
  endif
  for c in Chars(line, ts)
    if c[0] >= p.col
      return [c[2], c[3]]
    endif
  endfor
  return [0, 0]
enddef

def SpanText(lines: list<string>, sl: number, sc: number, el: number, ec: number): string
  if el < sl || (el == sl && ec <= sc)
    return ''
  endif
  if sl == el
    return strpart(lines[sl], sc, ec - sc)
  endif
  var parts = [strpart(lines[sl], sc)] + lines[sl + 1 : el - 1]
  return join(parts + [strpart(get(lines, el, ''), 0, ec)], "\n")
enddef

def Charwise(a: dict<number>, c: dict<number>, lines: list<string>, o: dict<any>): list<dict<number>>
  var [first, last] = a.line < c.line || (a.line == c.line && a.col <= c.col) ? [a, c] : [c, a]
  var start = Pos(first.line, min([first.col, len(lines[first.line])]))
  var line = lines[last.line]
  var several = first.line != last.line || first.col != last.col
  if o.selection == 'exclusive' && several
    return [start, Pos(last.line, min([last.col, len(line)]))]
  elseif last.col < len(line)
    return [start, Pos(last.line, last.col + CharLen(line, last.col))]
  elseif last.line + 1 >= len(lines) || o.ve_all
    # v$ where y takes no line break.
    return [start, Pos(last.line, len(line) == 0 ? 1 : len(line))]
  endif
  return [start, Pos(last.line + 1, 0)]
enddef

def Linewise(a: dict<number>, c: dict<number>, lines: list<string>): list<dict<number>>
  var sl = min([a.line, c.line])
  var el = max([a.line, c.line])
  var n = len(lines[el])
  if n > 0
    return [Pos(sl, 0), Pos(el, n)]
  endif
  return el + 1 >= len(lines) ? [Pos(sl, 0), Pos(el, 1)] : [Pos(sl, 0), Pos(el + 1, 0)]
enddef

def Blockwise(a: dict<number>, c: dict<number>, lines: list<string>, o: dict<any>): list<dict<number>>
  var ts = o.tabstop
  var top = min([a.line, c.line])
  var bottom = max([a.line, c.line])
  var av = VSpan(lines[a.line], a, ts)
  var cv = VSpan(lines[c.line], c, ts)
  var left = min([av[0], cv[0]])
  var tline = lines[top]
  var sc = len(tline)
  for ch in Chars(tline, ts)
    if ch[3] >= left
      sc = ch[0]
      break
    endif
  endfor
  var start = Pos(top, sc)
  var bline = lines[bottom]
  if len(bline) == 0
    return [start, Pos(bottom, 1)]
  elseif o.curswant == MAXCOL
    return [start, Pos(bottom, len(bline))]
  endif
  var exclusive = o.selection == 'exclusive' && (a.line != c.line || a.col != c.col)
  # Exclusive: the block's right edge (its rightmost corner's first column) is left out.
  var right = exclusive ? max([av[0], cv[0]]) : max([av[1], cv[1]])
  var ec = len(bline)
  for ch in Chars(bline, ts)
    if ch[3] >= right
      ec = exclusive ? ch[0] : ch[1]
      break
    endif
  endfor
  return [start, Pos(bottom, ec)]
enddef

# Encodes a selection. mode: a mode() string (not Visual/Select: the cursor
# alone); anchor, cursor: {line, col, off}, 0-based bytes; lines: the buffer's
# lines from 0 through the last selected one at least; o: {selection, ve_all,
# curswant, tabstop}.
export def Encode(mode: string, anchor: dict<number>, cursor: dict<number>, lines: list<string>, o: dict<any>): dict<any>
  var vt = VisualType(mode)
  var se: list<dict<number>>
  if vt == 'v'
    se = Charwise(anchor, cursor, lines, o)
  elseif vt == 'V'
    se = Linewise(anchor, cursor, lines)
  elseif vt == "\<C-V>"
    se = Blockwise(anchor, cursor, lines, o)
  else
    var p = Pos(cursor.line, cursor.col)
    return {text: '', selection: {start: p, end: copy(p), isEmpty: true}}
  endif
  var [s, e] = se
  return {text: SpanText(lines, s.line, s.character, e.line, e.character),
    selection: {start: s, end: e, isEmpty: s == e}}
enddef

# Whether buffer nr is a named file (not a terminal, scratch, help or diff buffer).
export def IsFile(nr: number): bool
  return bufname(nr) != '' && getbufvar(nr, '&buftype') == ''
    && bufname(nr) !~ '^\a[[:alnum:]+.-]*://'
enddef

# The selection (or cursor) of the current window now, with filePath; {}
# when it does not show a file.
export def Read(): dict<any>
  var nr = bufnr()
  if !IsFile(nr)
    return {}
  endif
  var v = getpos('v')
  var c = getcurpos()
  # Only the selected lines are read: positions are taken relative to the top one.
  var top = min([v[1], c[1]])
  var last = max([v[1], c[1]])
  var anchor = {line: v[1] - top, col: v[2] - 1, off: v[3]}
  var cursor = {line: c[1] - top, col: c[2] - 1, off: c[3]}
  var m = mode()
  if VisualType(m) == ''
    var out = Encode(m, anchor, {line: c[1] - 1, col: c[2] - 1, off: c[3]}, [], {})
    out.filePath = fnamemodify(bufname(nr), ':p')
    return out
  endif
  var lines = getline(top, last)
  # Whether a line break follows the last selected line depends on the lines after it.
  if last < line('$')
    add(lines, '')
  endif
  var out = Encode(m, anchor, cursor, lines, {
    selection: &selection, ve_all: &virtualedit =~ 'all', curswant: c[4], tabstop: &tabstop})
  out.selection.start.line += top - 1
  out.selection.end.line += top - 1
  out.filePath = fnamemodify(bufname(nr), ':p')
  return out
enddef
