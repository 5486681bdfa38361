vim9script
# Diff views: the file's text (read-only) and Claude's proposal (editable,
# 'buftype' acwrite) in a tab page of their own, with :diffthis. :w sends
# diffAccepted (Claude writes the file, never Vim), closing the proposal
# diffRejected. Only what was opened for a diff is ever closed.

import autoload 'claude_ide_bridge.vim' as cib

# tabName -> {tab, path, orig, prop, wins, state, closing, proposal, tick, eol, back}
var diffs: dict<dict<any>> = {}

# [lines, 'eol'] of a text as a buffer holds it.
export def Split(text: string): list<any>
  var lines = split(text, "\n", true)
  var eol = len(lines) > 1 && lines[-1] == ''
  return [eol ? lines[: -2] : lines, eol]
enddef

export def List(): list<dict<any>>
  return sort(mapnew(values(diffs), (_, d) => ({tabName: d.tab, filePath: d.path, state: d.state})),
    (a, b) => a.tabName < b.tabName ? -1 : 1)
enddef

export def IsDiffWin(w: number): bool
  return !empty(filter(values(diffs), (_, d) => index(d.wins, w) >= 0))
enddef

# A buffer named name (the tab page's label), made unique; loaded as 'nofile': never read from disk.
def Scratch(name: string, lines: list<string>, buftype: string): number
  var nr = bufadd(bufexists(name) ? printf('%s (%d)', name, bufnr('$') + 1) : name)
  for [o, val] in [['buftype', 'nofile'], ['swapfile', 0], ['bufhidden', 'hide']]
    setbufvar(nr, '&' .. o, val)
  endfor
  silent bufload(nr)
  setbufvar(nr, '&buftype', buftype)
  setbufvar(nr, '&undolevels', -1)
  setbufline(nr, 1, lines)
  setbufvar(nr, '&undolevels', -123456)
  setbufvar(nr, '&modified', 0)
  return nr
enddef

# Closes d's windows and wipes its buffers. A user looking at d goes back to the window they were in when
# it opened, in Normal mode (Claude's terminal in Terminal-Normal: the next :command is Vim's, not Claude's).
def Teardown(d: dict<any>)
  var back = index(d.wins, win_getid()) >= 0 ? d.back : 0
  d.closing = true
  if get(diffs, d.tab, {}) is d | remove(diffs, d.tab) | endif
  silent! execute 'autocmd! ClaudeIdeBridgeDiff * <buffer=' .. d.prop .. '>'
  for w in d.wins
    silent! execute 'autocmd! ClaudeIdeBridgeDiff WinClosed' w
    if win_id2tabwin(w)[0] > 0 | win_execute(w, winnr('$') > 1 || tabpagenr('$') > 1 ? 'close!' : 'diffoff | enew!') | endif
  endfor
  for nr in filter([d.prop, d.orig], (_, n) => bufexists(n))
    for w in win_findbuf(nr)
      win_execute(w, 'diffoff | enew!')
    endfor
    silent! execute 'bwipeout!' nr
  endfor
  if back != 0 | win_gotoid(back) | endif
  if back != 0 && mode() == 't' | feedkeys("\<C-W>N", 'nx') | elseif back != 0 | stopinsert | endif
  if exists('#User#ClaudeCodeDiffClosed') | doautocmd <nomodeline> User ClaudeCodeDiffClosed | endif
enddef

# showDiff's agent for people: a known name only; absent, Claude's own diff.
def Who(agent: any): string
  return get({claude: 'Claude', gemini: 'Gemini', qwen: 'Qwen'}, type(agent) == v:t_string ? agent : 'claude', 'An agent')
enddef

# showDiff {tabName, filePath, newFilePath, newContents, fileExists, proposal, agent}.
export def Show(p: dict<any>): dict<any>
  if !empty(filter(['tabName', 'filePath', 'newContents'], (_, k) => type(get(p, k, 0)) != v:t_string))
    throw 'showDiff needs tabName, filePath and newContents'
  endif
  var buf = cib.FindBuf(p.filePath)
  if buf > 0 && getbufvar(buf, '&modified') | throw fnamemodify(p.filePath, ':t') .. ' has unsaved changes; save or discard them first' | endif
  if has_key(diffs, p.tabName) | Teardown(diffs[p.tabName]) | endif
  var orig_lines = buf > 0 ? getbufline(buf, 1, '$')
    : get(p, 'fileExists', true) != false && filereadable(p.filePath) ? Split(join(readfile(p.filePath, 'b'), "\n"))[0] : ['']
  var [new_lines, eol] = Split(p.newContents)
  var [base, who] = [fnamemodify(p.filePath, ':t'), Who(get(p, 'agent', 'claude'))]
  var orig = Scratch(who .. ': ' .. base .. ' (now)', orig_lines, 'nofile')
  setbufvar(orig, '&modifiable', 0) | setbufvar(orig, '&readonly', 1)
  var prop = Scratch(who .. ': ' .. base, new_lines, 'acwrite')
  setbufvar(prop, '&eol', eol) | setbufvar(prop, '&fixeol', 0) | setbufvar(prop, '&bufhidden', 'unload') # :q! after edits (E37)
  var d: dict<any> = {tab: p.tabName, path: p.filePath, orig: orig, prop: prop, wins: [], state: 'pending',
    closing: false, proposal: get(p, 'proposal', 0), eol: eol, back: win_getid()}
  # Typing (Insert mode, or to Claude in its terminal): the diff opens without taking the keys.
  var typing = mode() =~ '^[iRtc]' || cib.Opt('keep_focus', 0)
  diffs[p.tabName] = d
  execute 'tab sbuffer' orig
  diffthis
  execute 'rightbelow vertical sbuffer' prop
  diffthis
  d.wins = [win_getid(winnr('#')), win_getid()] | setwinvar(d.wins[1], '&statusline', ' ' .. substitute(base, '%', '%%', 'g') .. " (" .. who .. "'s proposal%m)%=:w accepts · :q rejects (:q! after edits) ")
  if typing
    win_gotoid(d.back)
    cib.Notify(printf("%s proposes an edit of %s in tab page %d; :ClaudeCodeDiffAccept or :ClaudeCodeDiffDeny answers it from here", who, base, win_id2tabwin(d.wins[1])[0]))
  endif
  var ft = buf > 0 ? getbufvar(buf, '&filetype') : ''
  for w in d.wins
    win_execute(w, ft != '' ? 'setlocal filetype=' .. ft : 'silent! doautocmd filetypedetect BufRead ' .. fnameescape(p.filePath))
  endfor
  # The proposal as sent: any later change of its text bumps changedtick.
  d.tick = getbufvar(prop, 'changedtick')
  augroup ClaudeIdeBridgeDiff
    execute 'autocmd BufWriteCmd <buffer=' .. prop .. '> Decide(true)'
    execute 'autocmd WinClosed' d.wins[1] 'Closed(' .. string(p.tabName) .. ')'
  augroup END
  if exists('#User#ClaudeCodeDiffOpened') | doautocmd <nomodeline> User ClaudeCodeDiffOpened | endif
  return {}
enddef

# Closing the proposal is a "no"; the view goes with it (once the close is done).
def Closed(tab: string)
  var d = get(diffs, tab, {})
  if empty(d) || d.closing | return | endif
  timer_start(0, (_) => {
    if get(diffs, tab, {}) isnot d | return | endif
    if d.state == 'pending' | Reject(d) | elseif d.state == 'accepted' | Teardown(d) | endif
  })
enddef

# Sends diffAccepted naming the bridge's number of the proposal the user saw
# (no answer may apply to a proposal that replaced it): an untouched proposal
# by its number alone (the bridge answers Claude with the text it sent),
# anything else with the buffer's text.
def DoAccept(d: dict<any>)
  if d.state != 'pending' | cib.Notify(d.tab .. ' was already ' .. d.state, 'warn') | return | endif
  var params: dict<any> = {tabName: d.tab, proposal: d.proposal}
  if getbufvar(d.prop, 'changedtick') != d.tick || getbufvar(d.prop, '&eol') != d.eol
    params.contents = Text({tabName: d.tab}).text
  endif
  d.state = 'accepting'
  setbufvar(d.prop, '&modified', 0)
  cib.Request('diffAccepted', params, (e, _) => {
    if get(diffs, d.tab, {}) isnot d
    elseif !empty(e)
      d.state = 'pending'
      cib.Notify('accept failed: ' .. get(e, 'message', ''), 'error')
    else
      d.state = 'accepted'
      setbufvar(d.prop, '&modifiable', 0)
      # Claude writes the file now: look at it soon rather than at the next tick.
      for ms in [50, 200, 600]
        timer_start(ms, (_) => cib.CheckTime())
      endfor
    endif
  })
enddef

def Reject(d: dict<any>)
  if d.state != 'pending' | return | endif
  d.state = 'rejecting'
  cib.Request('diffRejected', {tabName: d.tab, proposal: d.proposal}, (e, _) => {
    if !empty(e) | cib.Notify('reject failed: ' .. get(e, 'message', ''), 'error') | endif
    if get(diffs, d.tab, {}) is d | Teardown(d) | endif
  })
enddef

# The diff a command means: the one of the current buffer, else the only pending one.
def Target(): dict<any>
  var mine = filter(values(diffs), (_, x) => x.prop == bufnr() || x.orig == bufnr())
  var pending = filter(values(diffs), (_, x) => x.state == 'pending')
  if !empty(mine) || len(pending) == 1 | return empty(mine) ? pending[0] : mine[0] | endif
  cib.Notify(empty(pending) ? 'no diff is pending' : 'several diffs are pending; run this in the one you mean', 'warn')
  return {}
enddef

# :ClaudeCodeDiffAccept (accept true) and :ClaudeCodeDiffDeny.
export def Decide(accept: bool)
  var d = Target()
  if empty(d) | return | elseif accept | DoAccept(d) | else | Reject(d) | endif
enddef

# diffText {tabName}: the proposal's text now, the user's edits included (null: no such view).
export def Text(p: dict<any>): dict<any>
  var d = get(diffs, get(p, 'tabName', ''), {})
  return {text: empty(d) ? null : join(getbufline(d.prop, 1, '$'), "\n") .. (getbufvar(d.prop, '&eol') ? "\n" : '')}
enddef

export def Close(p: dict<any>): dict<any>
  if has_key(diffs, get(p, 'tabName', '')) | Teardown(diffs[p.tabName]) | endif
  return {}
enddef

export def CloseAllViews()
  for d in values(diffs)
    Teardown(d)
  endfor
enddef

# setBufferText {filePath, text}: the file's buffer gets text as unsaved changes.
export def SetBufferText(p: dict<any>): dict<any>
  if type(get(p, 'filePath', 0)) != v:t_string || type(get(p, 'text', 0)) != v:t_string | throw 'setBufferText needs filePath and text' | endif
  var nr = bufadd(p.filePath)
  silent bufload(nr)
  setbufvar(nr, '&buflisted', 1)
  var [lines, eol] = Split(p.text)
  silent deletebufline(nr, 1, '$')
  setbufline(nr, 1, lines)
  setbufvar(nr, '&eol', eol)
  return {}
enddef
