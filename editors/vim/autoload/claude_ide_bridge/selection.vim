vim9script
# A cursor or Visual selection as Claude receives it (the spec's Selection
# table): 0-based lines and UTF-8 byte offsets, end exclusive; a character is
# what y takes as one, a code point with its composing characters (byteidx).

const MAXCOL = 2147483647

# Visual type ('v', 'V', "\<C-V>") of a mode() string; '' outside Visual and Select.
export def VisualType(mode: string): string
  return get({v: 'v', V: 'V', "\<C-V>": "\<C-V>", s: 'v', S: 'V', "\<C-S>": "\<C-V>"}, mode[0], '')
enddef

def Pos(line: number, character: number): dict<number>
  return {line: line, character: character}
enddef

# Byte length of the character at byte col of line; 0 at the line end.
def CharLen(line: string, col: number): number
  var n = col >= len(line) ? 0 : byteidx(strpart(line, col), 1)
  return col < len(line) && n <= 0 ? len(line) - col : n
enddef

# [byte start, byte end, first screen column, last screen column] of each character.
def Chars(line: string, ts: number): list<list<number>>
  var out: list<list<number>> = []
  var [col, vcol] = [0, 0]
  while col < len(line)
    var n = CharLen(line, col)
    var ch = strpart(line, col, n)
    var w = ch == "\t" ? ts - (vcol % ts) : max([strwidth(ch), 1])
    add(out, [col, col + n, vcol, vcol + w - 1])
    [col, vcol] = [col + n, vcol + w]
  endwhile
  return out
enddef

# Screen columns [first, last] of position p in line; past its end one cell.
def VSpan(line: string, p: dict<number>, ts: number): list<number>
  var cs = Chars(line, ts)
  var c = filter(copy(cs), (_, x) => x[0] >= p.col)
  var v = (empty(cs) ? 0 : cs[-1][3] + 1) + p.off
  return p.col >= len(line) || empty(c) ? [v, v] : c[0][2 : 3]
enddef

def SpanText(lines: list<string>, s: dict<number>, e: dict<number>): string
  if e.line < s.line || (e.line == s.line && e.character <= s.character) | return '' | endif
  if s.line == e.line | return strpart(lines[s.line], s.character, e.character - s.character) | endif
  var ls = lines[s.line : e.line]  # one copy of the lines, whatever their number
  [ls[0], ls[-1]] = [strpart(ls[0], s.character), strpart(ls[-1], 0, e.character)]
  return join(ls, "\n")
enddef

def Charwise(a: dict<number>, c: dict<number>, lines: list<string>, o: dict<any>): list<dict<number>>
  var [first, last] = a.line < c.line || (a.line == c.line && a.col <= c.col) ? [a, c] : [c, a]
  var start = Pos(first.line, min([first.col, len(lines[first.line])]))
  var line = lines[last.line]
  if o.selection == 'exclusive' && (first.line != last.line || first.col != last.col)
    return [start, Pos(last.line, min([last.col, len(line)]))]
  elseif last.col < len(line)
    return [start, Pos(last.line, last.col + CharLen(line, last.col))]
  elseif last.line + 1 >= len(lines) || o.ve_all
    # v$ where y takes no line break.
    return [start, Pos(last.line, max([len(line), 1]))]
  endif
  return [start, Pos(last.line + 1, 0)]
enddef

def Linewise(a: dict<number>, c: dict<number>, lines: list<string>): list<dict<number>>
  var [sl, el] = [min([a.line, c.line]), max([a.line, c.line])]
  if len(lines[el]) > 0 | return [Pos(sl, 0), Pos(el, len(lines[el]))] | endif
  return el + 1 >= len(lines) ? [Pos(sl, 0), Pos(el, 1)] : [Pos(sl, 0), Pos(el + 1, 0)]
enddef

# The contiguous span from the block's first position to its last.
def Blockwise(a: dict<number>, c: dict<number>, lines: list<string>, o: dict<any>): list<dict<number>>
  var [top, bottom] = [min([a.line, c.line]), max([a.line, c.line])]
  var [av, cv] = [VSpan(lines[a.line], a, o.tabstop), VSpan(lines[c.line], c, o.tabstop)]
  var left = filter(Chars(lines[top], o.tabstop), (_, x) => x[3] >= min([av[0], cv[0]]))
  var start = Pos(top, empty(left) ? len(lines[top]) : left[0][0])
  var bline = lines[bottom]
  if len(bline) == 0 | return [start, Pos(bottom, 1)] | endif
  if o.curswant == MAXCOL | return [start, Pos(bottom, len(bline))] | endif
  # Exclusive: the block's right edge (its rightmost corner's first column) is left out.
  var exclusive = o.selection == 'exclusive' && (a.line != c.line || a.col != c.col)
  var right = exclusive ? max([av[0], cv[0]]) : max([av[1], cv[1]])
  var end = filter(Chars(bline, o.tabstop), (_, x) => x[3] >= right)
  return [start, Pos(bottom, empty(end) ? len(bline) : end[0][exclusive ? 0 : 1])]
enddef

# Encodes a selection. mode: a mode() string (not Visual or Select: the cursor
# alone); anchor, cursor: {line, col, off}, 0-based bytes; lines: the buffer's
# lines from 0 through the last selected one, and one more when the buffer has
# more; o: {selection, ve_all, curswant, tabstop}.
export def Encode(mode: string, anchor: dict<number>, cursor: dict<number>, lines: list<string>, o: dict<any>): dict<any>
  var vt = VisualType(mode)
  if vt == ''
    return {text: '', selection: {start: Pos(cursor.line, cursor.col), end: Pos(cursor.line, cursor.col), isEmpty: true}}
  endif
  var [s, e] = vt == 'v' ? Charwise(anchor, cursor, lines, o) : vt == 'V' ? Linewise(anchor, cursor, lines) : Blockwise(anchor, cursor, lines, o)
  return {text: SpanText(lines, s, e), selection: {start: s, end: e, isEmpty: s == e}}
enddef

# Whether buffer nr is a named file (not a terminal, scratch, help or diff buffer, nor a URL).
export def IsFile(nr: number): bool
  return bufname(nr) != '' && getbufvar(nr, '&buftype') == '' && bufname(nr) !~ '^\a[[:alnum:]+.-]*://'
enddef

# The selection (or cursor) of the current window now, with filePath; {} for
# a window that does not show a file.
export def Read(): dict<any>
  if !IsFile(bufnr()) | return {} | endif
  var [v, c, m] = [getpos('v'), getcurpos(), mode()]
  # Only the selected lines are read: positions relative to the top one.
  var top = VisualType(m) == '' ? 1 : min([v[1], c[1]])
  var last = max([v[1], c[1]])
  # Whether a line break follows the last selected line depends on the lines after it.
  var lines = VisualType(m) == '' ? [] : getline(top, last)
  if last < line('$') | add(lines, '') | endif
  var out = Encode(m, {line: v[1] - top, col: v[2] - 1, off: v[3]}, {line: c[1] - top, col: c[2] - 1, off: c[3]}, lines,
    {selection: &selection, ve_all: &virtualedit =~ 'all', curswant: c[4], tabstop: &tabstop})
  out.selection.start.line += top - 1
  out.selection.end.line += top - 1
  out.filePath = expand('%:p')
  return out
enddef
