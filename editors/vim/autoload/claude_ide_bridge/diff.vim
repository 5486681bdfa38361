vim9script
# Diff views: Claude's proposal beside the file's current text in a tab page
# of their own, with :diffthis. The original is read-only; the proposal is an
# editable 'buftype' acwrite buffer: :w sends diffAccepted (the plugin never
# writes the file: Claude does), closing its window sends diffRejected. Only
# the windows and buffers opened for a diff are ever closed.

import autoload 'claude_ide_bridge.vim' as cib

# tabName -> {tab, path, orig, prop, wins, state, closing, proposal, tick, eol}
var diffs: dict<dict<any>> = {}

augroup ClaudeIdeBridgeDiff
augroup END

# Lines and 'eol' of a text as a buffer holds it.
export def Split(text: string): list<any>
  var lines = split(text, "\n", true)
  if len(lines) > 1 && lines[-1] == ''
    remove(lines, -1)
    return [lines, true]
  endif
  return [lines, false]
enddef

export def List(): list<dict<any>>
  return sort(mapnew(values(diffs), (_, d) => ({tabName: d.tab, filePath: d.path, state: d.state})),
    (a, b) => a.tabName < b.tabName ? -1 : a.tabName > b.tabName ? 1 : 0)
enddef

export def IsDiffWin(w: number): bool
  for d in values(diffs)
    if index(d.wins, w) >= 0
      return true
    endif
  endfor
  return false
enddef

def ForBuf(nr: number): dict<any>
  for d in values(diffs)
    if d.prop == nr || d.orig == nr
      return d
    endif
  endfor
  return {}
enddef

def Scratch(name: string, lines: list<string>, buftype: string): number
  var nr = bufadd(name)
  setbufvar(nr, '&buftype', buftype)
  setbufvar(nr, '&swapfile', 0)
  setbufvar(nr, '&bufhidden', 'hide')
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
  if get(diffs, d.tab, {}) is d
    remove(diffs, d.tab)
  endif
  silent! execute 'autocmd! ClaudeIdeBridgeDiff * <buffer=' .. d.prop .. '>'
  for w in d.wins
    silent! execute 'autocmd! ClaudeIdeBridgeDiff WinClosed' w
  endfor
  for w in d.wins
    if win_id2win(w) > 0 || win_id2tabwin(w)[0] > 0
      if winnr('$') > 1 || tabpagenr('$') > 1
        win_execute(w, 'close!')
      else
        win_execute(w, 'diffoff | enew!')
      endif
    endif
  endfor
  for nr in [d.prop, d.orig]
    if bufexists(nr)
      for w in win_findbuf(nr)
        win_execute(w, 'diffoff | enew!')
      endfor
      silent! execute 'bwipeout!' nr
    endif
  endfor
  if exists('#User#ClaudeCodeDiffClosed')
    doautocmd <nomodeline> User ClaudeCodeDiffClosed
  endif
enddef

# showDiff {tabName, filePath, newFilePath, newContents, fileExists, proposal}.
export def Show(p: dict<any>): dict<any>
  if type(get(p, 'tabName', 0)) != v:t_string || type(get(p, 'filePath', 0)) != v:t_string
      || type(get(p, 'newContents', 0)) != v:t_string
    throw 'showDiff needs tabName, filePath and newContents'
  endif
  var path = p.filePath
  var buf = cib.FindBuf(path)
  if buf > 0 && getbufvar(buf, '&modified')
    throw fnamemodify(path, ':t') .. ' has unsaved changes; save or discard them first'
  endif
  if has_key(diffs, p.tabName)
    Teardown(diffs[p.tabName])
  endif
  var [orig_lines, orig_eol] = [[''], false]
  if buf > 0
    orig_lines = getbufline(buf, 1, '$')
  elseif get(p, 'fileExists', true) != false && filereadable(path)
    orig_lines = Split(join(readfile(path, 'b'), "\n"))[0]
  endif
  var [new_lines, new_eol] = Split(p.newContents)
  var ft = buf > 0 ? getbufvar(buf, '&filetype') : ''
  var orig = Scratch('claude-ide-bridge://original/' .. p.tabName, orig_lines, 'nofile')
  setbufvar(orig, '&modifiable', 0)
  setbufvar(orig, '&readonly', 1)
  var prop = Scratch('claude-ide-bridge://proposed/' .. p.tabName, new_lines, 'acwrite')
  setbufvar(prop, '&eol', new_eol)
  setbufvar(prop, '&fixeol', 0)
  var n = get(p, 'proposal', 0)
  var d: dict<any> = {tab: p.tabName, path: path, orig: orig, prop: prop, wins: [], state: 'pending',
    closing: false, proposal: type(n) == v:t_number && n > 0 ? n : 0, eol: new_eol}
  diffs[p.tabName] = d
  execute 'tab sbuffer' orig
  var ow = win_getid()
  diffthis
  execute 'rightbelow vertical sbuffer' prop
  var pw = win_getid()
  diffthis
  d.wins = [ow, pw]
  for nr in [orig, prop]
    if ft != ''
      setbufvar(nr, '&filetype', ft)
    elseif exists('#filetypedetect')
      win_execute(bufwinid(nr), 'silent! doautocmd filetypedetect BufRead ' .. fnameescape(path))
    endif
  endfor
  # The proposal as sent: any later change of its text bumps changedtick.
  d.tick = getbufvar(prop, 'changedtick')
  setbufvar(prop, 'claude_ide_bridge_diff', p.tabName)
  augroup ClaudeIdeBridgeDiff
    execute 'autocmd BufWriteCmd <buffer=' .. prop .. '> Accept(' .. string(p.tabName) .. ')'
    execute 'autocmd WinClosed' pw 'Closed(' .. string(p.tabName) .. ')'
  augroup END
  if exists('#User#ClaudeCodeDiffOpened')
    doautocmd <nomodeline> User ClaudeCodeDiffOpened
  endif
  return {}
enddef

def Closed(tab: string)
  var d = get(diffs, tab, {})
  if empty(d) || d.closing
    return
  endif
  # Closing the proposal is a "no"; the view goes with it (after the close ends).
  timer_start(0, (_) => {
    if get(diffs, tab, {}) isnot d
      return
    elseif d.state == 'pending'
      Reject(d)
    elseif d.state == 'accepted'
      Teardown(d)
    endif
  })
enddef

def Accept(tab: string)
  var d = get(diffs, tab, {})
  if !empty(d)
    DoAccept(d)
  endif
enddef

# A decision's params: the diff's name and the bridge's number of the
# proposal the user saw (always sent: the bridge refuses a decision about a
# proposal that replaced it).
def Decision(d: dict<any>): dict<any>
  return d.proposal > 0 ? {tabName: d.tab, proposal: d.proposal} : {tabName: d.tab}
enddef

# Sends diffAccepted: an untouched proposal by its number (the bridge answers
# Claude with the text it sent), anything else with the buffer's text.
def DoAccept(d: dict<any>)
  if d.state != 'pending'
    cib.Notify(d.tab .. ' was already ' .. d.state, 'warn')
    return
  endif
  var params = Decision(d)
  var eol = getbufvar(d.prop, '&eol')
  if d.proposal == 0 || getbufvar(d.prop, 'changedtick') != d.tick || eol != d.eol
    params.contents = join(getbufline(d.prop, 1, '$'), "\n") .. (eol ? "\n" : '')
  endif
  d.state = 'accepting'
  setbufvar(d.prop, '&modified', 0)
  cib.Request('diffAccepted', params, (e, _) => {
    if !empty(e)
      if get(diffs, d.tab, {}) is d
        d.state = 'pending'
      endif
      cib.Notify('accept failed: ' .. get(e, 'message', ''), 'error')
    elseif get(diffs, d.tab, {}) is d
      d.state = 'accepted'
      setbufvar(d.prop, '&modifiable', 0)
      # Claude writes the file now: look at it soon rather than at the next tick.
      for ms in [50, 200, 600]
        timer_start(ms, (_) => cib.CheckTime())
      endfor
    endif
  })
enddef

# Sends diffRejected; the view closes with the decision made.
def Reject(d: dict<any>)
  if d.state != 'pending'
    return
  endif
  d.state = 'rejecting'
  cib.Request('diffRejected', Decision(d), (e, _) => {
    if !empty(e)
      cib.Notify('reject failed: ' .. get(e, 'message', ''), 'error')
    endif
    if get(diffs, d.tab, {}) is d
      Teardown(d)
    endif
  })
enddef

# The diff a command means: the one of the current buffer, else the only pending one.
def Target(): dict<any>
  var d = ForBuf(bufnr())
  if !empty(d)
    return d
  endif
  var pending = filter(values(diffs), (_, x) => x.state == 'pending')
  if len(pending) == 1
    return pending[0]
  endif
  cib.Notify(empty(pending) ? 'no diff is pending' : 'several diffs are pending; run this in the one you mean', 'warn')
  return {}
enddef

export def AcceptCmd()
  var d = Target()
  if !empty(d)
    DoAccept(d)
  endif
enddef

export def DenyCmd()
  var d = Target()
  if !empty(d)
    Reject(d)
  endif
enddef

export def Close(p: dict<any>): dict<any>
  if has_key(diffs, get(p, 'tabName', ''))
    Teardown(diffs[p.tabName])
  endif
  return {}
enddef

export def CloseAllViews()
  for d in values(diffs)
    Teardown(d)
  endfor
enddef

# setBufferText {filePath, text}: the file's buffer gets text as unsaved changes.
export def SetBufferText(p: dict<any>): dict<any>
  if type(get(p, 'filePath', 0)) != v:t_string || type(get(p, 'text', 0)) != v:t_string
    throw 'setBufferText needs filePath and text'
  endif
  var nr = bufadd(p.filePath)
  silent bufload(nr)
  setbufvar(nr, '&buflisted', 1)
  var [lines, eol] = Split(p.text)
  silent deletebufline(nr, 1, '$')
  setbufline(nr, 1, lines)
  setbufvar(nr, '&eol', eol)
  return {}
enddef
