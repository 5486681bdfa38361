vim9script
# Diff views: the file's text (read-only) and Claude's proposal (editable,
# 'buftype' acwrite) in a tab page of their own, with :diffthis. :w sends
# diffAccepted (Claude writes the file, never Vim), closing the proposal
# diffRejected. Only what was opened for a diff is ever closed.

import autoload 'claude_ide_bridge.vim' as cib

# tabName -> {tab, path, orig, prop, wins, state, closing, proposal, tick, eol}
var diffs: dict<dict<any>> = {}

augroup ClaudeIdeBridgeDiff
augroup END

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

def Scratch(name: string, lines: list<string>, buftype: string): number
  var nr = bufadd(name)
  for [o, val] in [['buftype', buftype], ['swapfile', 0], ['bufhidden', 'hide']]
    setbufvar(nr, '&' .. o, val)
  endfor
  silent bufload(nr)
  setbufvar(nr, '&undolevels', -1)
  setbufline(nr, 1, lines)
  setbufvar(nr, '&undolevels', -123456)
  setbufvar(nr, '&modified', 0)
  return nr
enddef

# Closes d's windows and wipes its buffers.
def Teardown(d: dict<any>)
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
  if exists('#User#ClaudeCodeDiffClosed') | doautocmd <nomodeline> User ClaudeCodeDiffClosed | endif
enddef

# showDiff {tabName, filePath, newFilePath, newContents, fileExists, proposal}.
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
  var orig = Scratch('claude-ide-bridge://original/' .. p.tabName, orig_lines, 'nofile')
  setbufvar(orig, '&modifiable', 0) | setbufvar(orig, '&readonly', 1)
  var prop = Scratch('claude-ide-bridge://proposed/' .. p.tabName, new_lines, 'acwrite')
  setbufvar(prop, '&eol', eol) | setbufvar(prop, '&fixeol', 0) | setbufvar(prop, '&bufhidden', 'unload') # :q! after edits (E37)
  var d: dict<any> = {tab: p.tabName, path: p.filePath, orig: orig, prop: prop, wins: [], state: 'pending',
    closing: false, proposal: get(p, 'proposal', 0), eol: eol}
  diffs[p.tabName] = d
  execute 'tab sbuffer' orig
  diffthis
  execute 'rightbelow vertical sbuffer' prop
  diffthis
  d.wins = [win_getid(winnr('#')), win_getid()] | setwinvar(d.wins[1], '&statusline', "Claude's proposal for " .. substitute(fnamemodify(p.filePath, ':t'), '%', '%%', 'g') .. ':  :w accepts  ·  :q rejects (:q! after edits)')
  stopinsert  # text typed in Insert mode as the diff comes must not land in the proposal
  var ft = buf > 0 ? getbufvar(buf, '&filetype') : ''
  for w in d.wins
    win_execute(w, ft != '' ? 'setlocal filetype=' .. ft : 'silent! doautocmd filetypedetect BufRead ' .. fnameescape(p.filePath))
  endfor
  # The proposal as sent: any later change of its text bumps changedtick.
  d.tick = getbufvar(prop, 'changedtick')
  augroup ClaudeIdeBridgeDiff
    execute 'autocmd BufWriteCmd <buffer=' .. prop .. '> Accept(' .. string(p.tabName) .. ')'
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

def Accept(tab: string)
  if has_key(diffs, tab) | DoAccept(diffs[tab]) | endif
enddef

# Sends diffAccepted naming the bridge's number of the proposal the user saw
# (no answer may apply to a proposal that replaced it): an untouched proposal
# by its number alone (the bridge answers Claude with the text it sent),
# anything else with the buffer's text.
def DoAccept(d: dict<any>)
  if d.state != 'pending' | cib.Notify(d.tab .. ' was already ' .. d.state, 'warn') | return | endif
  var params: dict<any> = {tabName: d.tab, proposal: d.proposal}
  var eol = getbufvar(d.prop, '&eol')
  if getbufvar(d.prop, 'changedtick') != d.tick || eol != d.eol
    params.contents = join(getbufline(d.prop, 1, '$'), "\n") .. (eol ? "\n" : '')
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
