vim9script
# claude-ide-bridge for Vim: runs `claude-ide-bridge serve --stdio` as a job
# and answers it (docs/editor-protocol.md). The bridge owns everything
# Claude-facing (WebSocket, lock file, MCP, diff state); this plugin reports
# editor facts and performs UI actions. The channel is in mode "lsp":
# Content-Length framing, which serve --stdio detects from the first byte.

import autoload 'claude_ide_bridge/selection.vim' as sel
import autoload 'claude_ide_bridge/diff.vim'
import autoload 'claude_ide_bridge/terminal.vim' as term

# The bridge connection: the job, its initialize answer, Claude clients, the
# callbacks waiting for it to be ready, its last stderr lines.
var S: dict<any> = {job: null_job, info: {}, clients: 0, waiting: [], stderr: [], stopping: false, exit: -1,
  next: 0, pending: {}}
# Selection tracking: the debounce timer, the last JSON sent, counters, the
# last window that showed a file.
var T: dict<any> = {timer: 0, last: '', sent: 0, win: 0}

export def Opt(name: string, default: any): any
  return get(g:, 'claude_ide_bridge_' .. name, default)
enddef

export def Notify(msg: string, level = 'info')
  execute 'echohl' {error: 'ErrorMsg', warn: 'WarningMsg'}->get(level, 'None')
  for l in split('claude-ide-bridge: ' .. msg, "\n")
    echomsg l
  endfor
  echohl None
enddef

# The bridge binary: g:claude_ide_bridge_bin, else $PATH, else the copy
# :ClaudeCodeInstall put in place; '' if none.
export def Bin(): string
  var b = Opt('bin', '')
  if b != ''
    return expand(b)
  endif
  if exepath('claude-ide-bridge') != ''
    return exepath('claude-ide-bridge')
  endif
  var installed = InstallPath()
  return executable(installed) ? installed : ''
enddef

export def InstallPath(): string
  var data = $XDG_DATA_HOME != '' ? $XDG_DATA_HOME : expand('~/.local/share')
  return data .. '/vim/claude-ide-bridge/bin/claude-ide-bridge'
enddef

def Folders(): list<string>
  return [resolve(getcwd(-1))]
enddef

export def Running(): bool
  return S.job != null_job && job_status(S.job) == 'run'
enddef

def Ready(): bool
  return Running() && !empty(S.info)
enddef

# Sends a request; Cb(error dict or {}, result) runs with the answer.
export def Request(method: string, params: dict<any>, Cb: func)
  if !Ready() && method != 'initialize'
    Cb({message: 'the bridge is not running (:ClaudeCodeStart)'}, {})
    return
  endif
  S.next += 1
  S.pending[S.next] = Cb
  Write({jsonrpc: '2.0', id: S.next, method: method, params: params})
enddef

export def SendNotification(method: string, params: dict<any>)
  if Ready()
    Write({jsonrpc: '2.0', method: method, params: params})
  endif
enddef

# One message per line (newline framing). Vim's channel mode "lsp" frames
# with Content-Length, but it matches any incoming message with an id to its
# own pending requests, the bridge's requests included: their ids collide.
def Write(msg: dict<any>)
  if S.job != null_job && job_status(S.job) == 'run'
    ch_sendraw(S.job, json_encode(msg) .. "\n")
  endif
enddef

# Which diagnostics plugin answers getDiagnostics: 'ale', 'vim-lsp', 'yegappan' or ''.
def DiagSource(): string
  if exists('*ale#engine#GetLoclist') || exists('g:loaded_ale')
    return 'ale'
  elseif exists('g:lsp_loaded') || exists('*lsp#get_server_names')
    return 'vim-lsp'
  elseif exists('g:loaded_lsp') || exists('*lsp#lsp#GetDiagsForBuf')
    return 'yegappan'
  endif
  return ''
enddef

export def Start(Cb: func = null_function): bool
  if Ready()
    if Cb != null_function
      Cb(S.info)
    endif
    return true
  endif
  if Cb != null_function
    add(S.waiting, Cb)
  endif
  if Running()
    return true
  endif
  var bin = Bin()
  if bin == ''
    Notify('claude-ide-bridge not found: set g:claude_ide_bridge_bin, put it on $PATH or run :ClaudeCodeInstall (:help claude-ide-bridge-install)', 'error')
    S.waiting = []
    return false
  endif
  var cmd = [bin, 'serve', '--stdio'] + Opt('bridge_args', [])
  var diag = DiagSource()
  if diag == ''
    # No diagnostics of Vim's own: the bridge's language servers answer
    # (subject to its workspace trust rules).
    for l in Opt('lsp', ['auto'])
      cmd += ['--lsp', l]
    endfor
  endif
  S.stderr = []
  S.stopping = false
  S.info = {}
  S.clients = 0
  S.pending = {}
  S.job = job_start(cmd, {in_mode: 'nl', out_mode: 'nl', err_mode: 'nl',
    out_cb: (_, l) => OnLine(l), err_cb: (_, l) => OnStderr(l), exit_cb: (j, c) => OnExit(j, c),
    stoponexit: 'term', noblock: true})
  if job_status(S.job) != 'run'
    Notify('cannot start ' .. bin, 'error')
    S.job = null_job
    S.waiting = []
    return false
  endif
  var name = Opt('ide_name', 'Vim (' .. fnamemodify(getcwd(), ':t') .. ')')
  Request('initialize', {
    name: name, pid: getpid(), workspaceFolders: Folders(), positionEncoding: 'utf-8',
    trackSelection: !!Opt('track_selection', 1),
    capabilities: {openFile: true, showDiff: true, canCloseTabs: true, getOpenEditors: true,
      getCurrentSelection: true, checkDocumentDirty: true, saveDocument: true,
      getDiagnostics: diag != '', executeCode: false, setBufferText: true, lspRequest: false}},
    (e, r) => OnReady(e, r))
  return true
enddef

def OnReady(e: dict<any>, r: any)
  if !empty(e) || type(r) != v:t_dict
    Notify('the bridge did not initialize: ' .. get(e, 'message', string(r)), 'error')
    Stop()
    return
  endif
  S.info = r
  T.last = ''
  Watch()
  if Opt('track_selection', 1)
    Schedule()
  endif
  var waiting = S.waiting
  S.waiting = []
  for F in waiting
    F(S.info)
  endfor
enddef

def OnStderr(line: string)
  add(S.stderr, line)
  if len(S.stderr) > 50
    remove(S.stderr, 0)
  endif
enddef

def OnExit(j: job, code: number)
  if j != S.job
    return
  endif
  S.job = null_job
  S.info = {}
  S.clients = 0
  S.exit = code
  S.waiting = []
  diff.CloseAllViews()
  if code != 0 && !S.stopping
    Notify(printf('the bridge exited with status %d%s', code, empty(S.stderr) ? '' : ': ' .. S.stderr[-1]), 'error')
  endif
enddef

# Stops the bridge: it settles pending diffs (never as accepted), removes its
# lock file and exits with its stdin.
export def Stop()
  diff.CloseAllViews()
  if S.job != null_job
    S.stopping = true
    ch_close_in(S.job)
    var j = S.job
    timer_start(2000, (_) => job_status(j) == 'run' ? job_stop(j) : 0)
  endif
enddef

# The environment of a claude started against this bridge.
export def Env(): dict<string>
  var np = filter(split($no_proxy != '' ? $no_proxy : $NO_PROXY, ','), (_, s) => s != '')
  for l in ['127.0.0.1', 'localhost', '::1']
    if index(np, l) < 0
      add(np, l)
    endif
  endfor
  var env: dict<string> = {no_proxy: join(np, ','), NO_PROXY: join(np, ','), ENABLE_IDE_INTEGRATION: 'true'}
  if has_key(S.info, 'port')
    env.CLAUDE_CODE_SSE_PORT = string(S.info.port)
  endif
  for [k, v] in items(get(S.info, 'env', {}))
    env[k] = type(v) == v:t_string ? v : string(v)
  endfor
  return env
enddef

export def Info(): dict<any>
  return S.info
enddef

# --- messages from the bridge ------------------------------------------------

def OnLine(line: string)
  var m: any
  try
    m = json_decode(line)
  catch
    return
  endtry
  if type(m) != v:t_dict
    return
  endif
  var method = get(m, 'method', '')
  if method == '' && has_key(m, 'id')
    var key = string(m.id)
    if has_key(S.pending, key)
      var Cb = remove(S.pending, key)
      Cb(get(m, 'error', {}), get(m, 'result', {}))
    endif
    return
  endif
  OnMessage(m)
enddef

def OnMessage(m: dict<any>)
  var method = get(m, 'method', '')
  var params = get(m, 'params', {})
  if type(params) != v:t_dict
    params = {}
  endif
  if method == 'clientConnected' || method == 'clientDisconnected'
    S.clients = get(params, 'clients', 0)
    if exists('#User#ClaudeCode' .. method[6 :])
      execute 'doautocmd <nomodeline> User ClaudeCode' .. method[6 :]
    endif
    return
  endif
  if !has_key(m, 'id') || method == ''
    return
  endif
  var answer: dict<any> = {id: m.id}
  if !has_key(HANDLERS, method)
    answer.error = {code: -32601, message: 'method not found: ' .. method}
  else
    try
      answer.result = HANDLERS[method](params)
    catch
      # A sentence for the user (it reaches Claude as the tool error).
      answer.error = {code: -32000, message: substitute(v:exception, '^Vim\((\a\+)\)\=:', '', '')}
    endtry
  endif
  answer.jsonrpc = '2.0'
  Write(answer)
enddef

def NeedPath(p: dict<any>, method: string): string
  if type(get(p, 'filePath', 0)) != v:t_string || p.filePath == ''
    throw method .. ' needs filePath'
  endif
  return p.filePath
enddef

# The loaded buffer of path, or -1.
export def FindBuf(path: string): number
  var nr = bufnr('^' .. fnameescape(path) .. '$')
  if nr < 0
    for b in getbufinfo({bufloaded: 1})
      if b.name != '' && resolve(b.name) == resolve(path)
        return b.bufnr
      endif
    endfor
  endif
  return nr >= 0 && bufloaded(nr) ? nr : -1
enddef

def IsFileWin(w: number): bool
  return w > 0 && win_id2win(w) > 0 && sel.IsFile(winbufnr(w)) && !diff.IsDiffWin(w)
    && win_gettype(w) == ''
enddef

# The window whose selection counts: the current one when it shows a file,
# else the last one that did; 0 when none is left.
def ActiveWin(): number
  return IsFileWin(win_getid()) ? win_getid() : IsFileWin(T.win) ? T.win : 0
enddef

def ActiveSelection(): any
  var w = ActiveWin()
  if w == 0
    return null
  elseif w == win_getid()
    return sel.Read()
  endif
  var c = getcurpos(w)
  var s = sel.Encode('n', {}, {line: c[1] - 1, col: c[2] - 1, off: 0}, [], {})
  s.filePath = fnamemodify(bufname(winbufnr(w)), ':p')
  return s
enddef

# A window to show a file in: the active file window of this tab, else any
# ordinary one, else a new split.
def EditorWin(): number
  var w = ActiveWin()
  if w > 0 && win_id2tabwin(w)[0] == tabpagenr()
    return w
  endif
  for i in range(1, winnr('$'))
    var id = win_getid(i)
    if win_gettype(id) == '' && getbufvar(winbufnr(id), '&buftype') != 'terminal' && !diff.IsDiffWin(id)
      return id
    endif
  endfor
  topleft vsplit
  return win_getid()
enddef

def OpenFile(p: dict<any>): dict<any>
  var path = NeedPath(p, 'openFile')
  if !filereadable(path) && !isdirectory(path)
    throw 'cannot open ' .. path .. ': no such file'
  endif
  var nr = bufadd(path)
  if get(p, 'makeFrontmost', true) != false
    win_gotoid(EditorWin())
    execute 'buffer' nr
    var r = get(p, 'selection', {})
    if type(r) == v:t_dict && has_key(r, 'start')
      cursor(r.start.line + 1, r.start.character + 1)
      if r.start != r.end
        # Visual marks are inclusive: the last selected byte.
        var [el, ec] = [r.end.line + 1, r.end.character]
        if ec == 0 && el > 1
          el -= 1
          ec = len(getline(el))
        endif
        setpos("'<", [nr, r.start.line + 1, r.start.character + 1, 0])
        setpos("'>", [nr, el, max([ec, 1]), 0])
        feedkeys('gv', 'n')
      endif
    endif
  else
    bufload(nr)
    setbufvar(nr, '&buflisted', 1)
  endif
  return {languageId: getbufvar(nr, '&filetype'), lineCount: getbufinfo(nr)[0].linecount}
enddef

def OpenEditors(): dict<any>
  var w = ActiveWin()
  var active = w > 0 ? winbufnr(w) : -1
  var out = []
  for b in getbufinfo({buflisted: 1, bufloaded: 1})
    if sel.IsFile(b.bufnr)
      add(out, {filePath: fnamemodify(b.name, ':p'), isActive: b.bufnr == active, isDirty: !!b.changed,
        languageId: getbufvar(b.bufnr, '&filetype'), label: fnamemodify(b.name, ':t')})
    endif
  endfor
  return {editors: out}
enddef

def Dirty(p: dict<any>): dict<any>
  var nr = FindBuf(NeedPath(p, 'checkDocumentDirty'))
  return nr < 0 ? {isOpen: false, isDirty: false, isUntitled: false}
    : {isOpen: true, isDirty: !!getbufvar(nr, '&modified'), isUntitled: false}
enddef

def Save(p: dict<any>): dict<any>
  var path = NeedPath(p, 'saveDocument')
  var nr = FindBuf(path)
  if nr < 0
    return {isOpen: false, saved: false}
  endif
  var wins = win_findbuf(nr)
  try
    if !empty(wins)
      win_execute(wins[0], 'silent write')
    else
      var back = win_getid()
      execute 'keepalt keepjumps silent sbuffer' nr
      try
        silent write
      finally
        close
        win_gotoid(back)
      endtry
    endif
  catch
    throw 'could not save ' .. fnamemodify(path, ':t') .. ': ' .. v:exception
  endtry
  return {isOpen: true, saved: !getbufvar(nr, '&modified')}
enddef

const SEVERITY = {E: 'Error', W: 'Warning', I: 'Info', H: 'Hint', 1: 'Error', 2: 'Warning', 3: 'Info', 4: 'Hint'}

# One diagnostic from a quickfix-style item (ALE, yegappan: 1-based columns).
def FromItem(d: dict<any>): dict<any>
  var l = get(d, 'lnum', 1) - 1
  var c = max([get(d, 'col', 1) - 1, 0])
  var out = {message: get(d, 'text', ''), severity: get(SEVERITY, toupper(get(d, 'type', 'E')), 'Error'),
    range: {start: {line: l, character: c},
      end: {line: get(d, 'end_lnum', l + 1) - 1, character: max([get(d, 'end_col', c + 1), c])}}}
  for [k, src] in [['source', 'linter_name'], ['code', 'code']]
    if get(d, src, '') != ''
      out[k] = string(d[src])->trim("'")
    endif
  endfor
  return out
enddef

# One diagnostic from an LSP one (vim-lsp, yegappan's raw form).
def FromLsp(d: dict<any>): dict<any>
  var out = {message: get(d, 'message', ''), severity: get(SEVERITY, get(d, 'severity', 1), 'Error'), range: d.range}
  for k in ['source', 'code']
    if has_key(d, k) && d[k] != v:null
      out[k] = type(d[k]) == v:t_string ? d[k] : string(d[k])
    endif
  endfor
  return out
enddef

def DiagsOf(nr: number): list<dict<any>>
  var src = DiagSource()
  if src == 'ale' && exists('*ale#engine#GetLoclist')
    return mapnew(ale#engine#GetLoclist(nr), (_, d) => FromItem(d))
  elseif src == 'vim-lsp' && exists('*lsp#internal#diagnostics#state#_get_all_diagnostics_grouped_by_server_for_uri')
    var out = []
    for r in values(lsp#internal#diagnostics#state#_get_all_diagnostics_grouped_by_server_for_uri(lsp#utils#get_buffer_uri(nr)))
      out += mapnew(get(get(r, 'params', {}), 'diagnostics', []), (_, d) => FromLsp(d))
    endfor
    return out
  elseif src == 'yegappan' && exists('*lsp#diag#GetDiagsForBuf')
    return mapnew(lsp#diag#GetDiagsForBuf(nr), (_, d) => has_key(d, 'range') ? FromLsp(d) : FromItem(d))
  endif
  return []
enddef

def Diagnostics(p: dict<any>): dict<any>
  if type(get(p, 'filePath', 0)) == v:t_string && p.filePath != ''
    var nr = FindBuf(p.filePath)
    return {files: [{filePath: p.filePath, diagnostics: nr < 0 ? [] : DiagsOf(nr)}]}
  endif
  var out = []
  for b in getbufinfo({bufloaded: 1})
    if sel.IsFile(b.bufnr)
      var ds = DiagsOf(b.bufnr)
      if !empty(ds)
        add(out, {filePath: fnamemodify(b.name, ':p'), diagnostics: ds})
      endif
    endif
  endfor
  return {files: out}
enddef

# --- selection tracking --------------------------------------------------------

export def Schedule()
  if !Ready() || !Opt('track_selection', 1)
    return
  endif
  if IsFileWin(win_getid())
    T.win = win_getid()
  endif
  timer_stop(T.timer)
  T.timer = timer_start(Opt('selection_debounce_ms', 50), (_) => Flush())
enddef

def Flush()
  if !Ready() || !IsFileWin(win_getid())
    return
  endif
  T.win = win_getid()
  var s = sel.Read()
  var key = json_encode(s)
  if empty(s) || key == T.last
    return
  endif
  T.last = key
  T.sent += 1
  SendNotification('selectionChanged', s)
enddef

export def WinEntered()
  if IsFileWin(win_getid())
    T.win = win_getid()
  endif
enddef

# --- buffers follow the disk ---------------------------------------------------
# A timer runs :checktime while the bridge runs; FileChangedShell reloads an
# unmodified buffer at once and keeps a modified one, with one warning naming
# the file (per change on disk). Vim's own check still guards the next :w.

var watch = 0

export def Watch()
  if watch == 0
    watch = timer_start(Opt('watch_ms', 500), (_) => CheckTime(), {repeat: -1})
  endif
enddef

export def CheckTime()
  if !Running() || getcmdwintype() != '' || mode() =~ '^[cr]'
    return
  endif
  # One buffer at a time: without a number :checktime skips hidden buffers.
  for b in getbufinfo({bufloaded: 1})
    if sel.IsFile(b.bufnr)
      silent! execute 'checktime' b.bufnr
    endif
  endfor
enddef

export def FileChanged()
  var nr = str2nr(expand('<abuf>'))
  var name = fnamemodify(bufname(nr), ':~:.')
  if v:fcs_reason == 'deleted'
    v:fcs_choice = ''
    timer_start(0, (_) => Notify(name .. ' was deleted on disk; the buffer keeps its text', 'warn'))
  elseif getbufvar(nr, '&modified')
    v:fcs_choice = ''
    # After :silent checktime, which would keep it out of the message history.
    timer_start(0, (_) => Notify(name .. ' changed on disk; your unsaved changes are kept (:edit! loads the new text)', 'warn'))
  elseif v:fcs_reason != 'mode'
    v:fcs_choice = 'reload'
  endif
enddef

# --- commands -------------------------------------------------------------------

# Sends an @-mention: 0-based inclusive lines, or the whole file (-1).
export def AtMention(path: string, first = -1, last = -1)
  var params: dict<any> = {filePath: path}
  if first >= 0
    params.lineStart = first
    params.lineEnd = last >= 0 ? last : first
  endif
  Start((_) => Request('atMentioned', params, (e, r) => {
    if !empty(e)
      Notify('could not send ' .. path .. ': ' .. get(e, 'message', ''), 'error')
    elseif type(r) == v:t_dict && get(r, 'held', false)
      Notify('no Claude is connected yet; the mention is held for it')
    endif
  }))
enddef

export def Send(range: number, line1: number, line2: number)
  if !sel.IsFile(bufnr())
    Notify('this buffer is not a file', 'warn')
  elseif range > 0
    AtMention(expand('%:p'), line1 - 1, line2 - 1)
  else
    AtMention(expand('%:p'))
  endif
enddef

export def Add(...args: list<string>)
  var path = fnamemodify(expand(args[0]), ':p')
  if !filereadable(path) && !isdirectory(path)
    Notify('no such file: ' .. args[0], 'error')
    return
  endif
  path = substitute(path, '.\zs/\+$', '', '')
  var n = mapnew(args[1 :], (_, a) => a =~ '^\d\+$' ? str2nr(a) : -1)
  if len(n) > 2 || index(n, -1) >= 0 || index(n, 0) >= 0 || (len(n) == 2 && n[1] < n[0])
    Notify('usage: :ClaudeCodeAdd <path> [start] [end] (1-based lines, start <= end)', 'error')
  elseif empty(n)
    AtMention(path)
  else
    AtMention(path, n[0] - 1, n[-1] - 1)
  endif
enddef

export def CloseAllDiffs()
  Request('closeAllDiffs', {}, (e, r) => {
    if !empty(e)
      Notify('close all diffs: ' .. get(e, 'message', ''), 'error')
      return
    endif
    var msg = printf('closed %d diff(s)', get(r, 'closed', 0))
    if !empty(get(r, 'restored', []))
      msg ..= '; accepted text left unsaved in ' .. join(r.restored, ', ')
    endif
    Notify(msg)
  })
enddef

export def Status()
  if !Ready()
    Notify(Running() ? 'the bridge is starting' : 'the bridge is not running')
    return
  endif
  Request('status', {}, (e, r) => {
    if !empty(e)
      Notify('status: ' .. get(e, 'message', ''), 'error')
      return
    endif
    var lines = [printf('port %s, %d Claude client(s), lock %s', get(r, 'port', ''), get(r, 'clients', 0), get(r, 'lockPath', ''))]
    for d in get(r, 'diffs', [])
      add(lines, printf('diff %s (%s): %s', get(d, 'tabName', ''), get(d, 'filePath', ''), get(d, 'state', '')))
    endfor
    Notify(join(lines, "\n"))
  })
enddef

export def Toggle(focus: bool, ...args: list<string>)
  Start((info) => WithMode(args, (full) => term.Open(focus, args, full, info, Env())))
enddef

var mode_told = false

# Calls Done(args) with the permission flag the CLI needs in front of args:
# the option permission_mode when set (false or '': none), else what the
# bridge decides (--permission-mode default unless the arguments or the Claude
# settings in force choose a mode; in auto mode no Edit would reach a diff).
def WithMode(args: list<string>, Done: func)
  var opt = Opt('permission_mode', null)
  if type(opt) != v:t_none && (type(opt) != v:t_string || opt == '')
    Done(args)
    return
  endif
  var user = (type(opt) == v:t_string ? ['--permission-mode', opt] : []) + args
  var base = Opt('terminal_cmd', 'claude')
  Request('permissionMode', {args: (type(base) == v:t_list ? base[1 :] : split(base)[1 :]) + user}, (e, r) => {
    if !empty(e) || type(r) != v:t_dict
      Notify('permission mode: ' .. get(e, 'message', ''), 'warn')
      Done(user)
      return
    endif
    if get(r, 'skipsDiffs', false) && get(r, 'source', '') != 'arguments' && !mode_told
      mode_told = true
      Notify(printf('claude starts in %s mode (%s): its edits are written without a diff here. :help claude-ide-bridge-permission-mode',
        get(r, 'mode', ''), get(r, 'source', '')), 'warn')
    endif
    Done(get(r, 'add', []) + user)
  })
enddef

# For statuslines and tests; no request to the bridge.
export def State(): dict<any>
  return {running: Running(), ready: Ready(), port: get(S.info, 'port', 0), lockPath: get(S.info, 'lockPath', ''),
    clients: S.clients, diffs: diff.List(), sent: T.sent, last: T.last, exit: S.exit, stderr: S.stderr,
    terminal: term.Running()}
enddef

export def DirChanged()
  SendNotification('workspaceFoldersChanged', {folders: Folders()})
enddef

# The bridge's requests (after the functions they name).
const HANDLERS = {
  openFile: (p) => OpenFile(p),
  getOpenEditors: (p) => OpenEditors(),
  getCurrentSelection: (p) => ({selection: ActiveSelection() ?? v:null}),
  checkDocumentDirty: (p) => Dirty(p),
  saveDocument: (p) => Save(p),
  getDiagnostics: (p) => Diagnostics(p),
  showDiff: (p) => diff.Show(p),
  closeDiff: (p) => diff.Close(p),
  setBufferText: (p) => diff.SetBufferText(p),
}
