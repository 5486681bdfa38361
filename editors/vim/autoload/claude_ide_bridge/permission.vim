vim9script
# Claude's permission prompts asked in Vim (askPermission, docs/editor-protocol.md):
# Claude's terminal asks too, and the first answer wins. Each prompt is a popup at
# the top right with no filter: it takes no key and leaves the focus and the mode
# alone. :ClaudeCodePermissions gives the oldest one a filter that takes every key
# until the user answers: y allow once, a allow always (Claude's suggestion), n
# deny, r deny with a reason typed in (input()), q or Esc later (the prompt stays
# pending), j/k scroll. What it shows is the model's text: control and bidi
# characters shown as \xNN / \u{NNNN}, and only the first MAX characters.

import autoload 'claude_ide_bridge.vim' as cib

const MAX = 4096

# id -> {id, session, tool, text, always, win}
var P: dict<dict<any>> = {}

# s with control and bidi characters made visible, cut at MAX characters.
export def Clean(s: any): string
  var t = type(s) == v:t_string ? s : string(s)
  var cut = strchars(t) > MAX
  if cut | t = strcharpart(t, 0, MAX) | endif
  t = substitute(t, '[\x01-\x1f\x7f]', '\=printf("\\x%02x", char2nr(submatch(0)))', 'g')
  t = substitute(t, '[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]', '\=printf("\\u{%04x}", char2nr(submatch(0)))', 'g')
  return cut ? t .. ' …' : t
enddef

# The tool input as text: a command, a URL or a path by itself, else its JSON
# (an MCP tool's arguments).
def Describe(input: any): string
  if type(input) == v:t_string | return Clean(input) | endif
  if type(input) != v:t_dict | return '' | endif
  for k in ['command', 'url', 'file_path']
    if type(get(input, k, 0)) == v:t_string | return k .. ': ' .. Clean(input[k]) | endif
  endfor
  return Clean(json_encode(input))
enddef

def Lines(p: dict<any>, answering: bool): list<string>
  var keys = p.always ? '[y] allow once  [a] allow always  [n] deny  [r] deny with a reason'
    : '[y] allow  [n] deny  [r] deny with a reason'
  return [printf('Claude (session %s) asks to use %s:', strcharpart(Clean(p.session), 0, 8), Clean(p.tool)), '  ' .. p.text, '',
    answering ? keys .. '  [q] later' : ':ClaudeCodePermissions to answer']
enddef

def CloseWin(p: dict<any>)
  var w = p.win
  p.win = 0
  if w > 0 | popup_close(w) | endif
enddef

# Shows prompt id; answering: its filter takes the keys.
def Show(id: number, answering: bool)
  var p = get(P, id, {})
  if empty(p) | return | endif
  CloseWin(p)
  var width = min([&columns - 4, 100])
  var opts: dict<any> = {pos: 'topright', line: 2, col: &columns - 1, minwidth: width, maxwidth: width,
    maxheight: max([&lines / 2, 6]), wrap: true, border: [], padding: [0, 1, 0, 1], zindex: 300,
    title: answering ? ' Claude asks (answering) ' : ' Claude asks ', scrollbar: true,
    highlight: answering ? 'PmenuSel' : 'Pmenu',
    callback: (w, result) => {
      if p.win != w | return | endif
      p.win = 0
      # Closed by CTRL-C: the question stays pending, shown again.
      if result == -1 && has_key(P, id) | timer_start(0, (_) => Show(id, false)) | endif
    }}
  if answering | extend(opts, {filter: (w, k) => Key(id, w, k), mapping: false}) | endif
  p.win = popup_create(Lines(p, answering), opts)
enddef

def Key(id: number, w: number, key: string): bool
  var p = get(P, id, {})
  if empty(p) | popup_close(w) | return true | endif
  if key == 'y'
    Decide(id, 'allow')
  elseif key == 'a' && p.always
    Decide(id, 'allow', '', true)
  elseif key == 'n'
    Decide(id, 'deny')
  elseif key == 'r'
    Show(id, false)
    # After the filter returns: input() reads its own keys.
    timer_start(0, (_) => Reason(id))
  elseif key == 'q' || key == "\<Esc>" || key == 'x'
    Show(id, false)
  elseif key == 'j' || key == "\<Down>"
    popup_setoptions(w, {firstline: popup_getpos(w).firstline + 1})
  elseif key == 'k' || key == "\<Up>"
    popup_setoptions(w, {firstline: max([popup_getpos(w).firstline - 1, 1])})
  endif
  return true   # every key is the prompt's while answering
enddef

def Reason(id: number)
  if !has_key(P, id) | return | endif
  var reason = input('Reason (Claude gets it): ')
  redraw
  # Withdrawn while the reason was typed: nothing is sent.
  if !has_key(P, id)
    cib.Notify("Claude's question was withdrawn; the reason was not sent", 'warn')
  elseif reason != ''
    Decide(id, 'deny', reason)
  endif
enddef

# Sends the decision on prompt id; false when it is not pending here.
export def Decide(id: number, behavior: string, message = '', always = false): bool
  var p = get(P, id, {})
  if empty(p) | return false | endif
  CloseWin(p)
  remove(P, id)
  var params: dict<any> = {id: id, behavior: behavior}
  if message != '' | params.message = message | endif
  if always | params.always = true | endif
  cib.Request('permissionDecided', params, (e, _) => {
    if !empty(e) | cib.Notify("Claude's question was not answered here: " .. get(e, 'message', ''), 'warn') | endif
  })
  return true
enddef

# askPermission: shown at once (the answer {}), the decision comes later.
export def Ask(params: dict<any>): dict<any>
  if type(get(params, 'id', '')) != v:t_number | throw 'askPermission needs a numeric id' | endif
  var sugg = get(params, 'suggestions', [])
  var p: dict<any> = {id: params.id, session: type(get(params, 'session', 0)) == v:t_string ? params.session : '',
    tool: type(get(params, 'tool', 0)) == v:t_string ? params.tool : '?', text: Describe(get(params, 'input', {})),
    always: type(sugg) == v:t_list && !empty(sugg), win: 0}
  P[p.id] = p
  Show(p.id, false)
  if exists('#User#ClaudeCodePermission') | doautocmd <nomodeline> User ClaudeCodePermission | endif
  return {}
enddef

# permissionWithdrawn: the prompt goes, with a note.
export def Withdrawn(params: dict<any>)
  var p = get(P, get(params, 'id', -1), {})
  if empty(p) | return | endif
  CloseWin(p)
  remove(P, p.id)
  cib.Notify(printf("Claude's question about %s was withdrawn: %s", Clean(p.tool), Clean(get(params, 'reason', ''))))
enddef

# The pending prompts, oldest first.
export def List(): list<dict<any>>
  return sort(mapnew(values(P), (_, p) => ({id: p.id, session: p.session, tool: p.tool, input: p.text})), (a, b) => a.id - b.id)
enddef

# :ClaudeCodePermissions: lists the pending prompts; the oldest takes the keys.
export def Command()
  var l = List()
  if empty(l) | cib.Notify('no permission question of Claude is pending') | return | endif
  # One line: a longer message would wait for Enter and take the first key.
  cib.Notify(printf('%d question(s) pending; answering the oldest (%s)', len(l), Clean(l[0].tool)))
  Show(l[0].id, true)
enddef

# The bridge is gone: every prompt with it.
export def CloseAll()
  for p in values(P) | CloseWin(p) | endfor
  P = {}
enddef
