vim9script
# claude-ide-bridge for Vim: runs `claude-ide-bridge serve --stdio` as a job and answers it
# (docs/editor-protocol.md). The bridge owns everything Claude-facing (WebSocket, lock file,
# MCP, diff state); this plugin reports editor facts and performs UI actions.

import autoload 'claude_ide_bridge/selection.vim' as sel
import autoload 'claude_ide_bridge/diff.vim'
import autoload 'claude_ide_bridge/terminal.vim' as term
import autoload 'claude_ide_bridge/permission.vim' as perm

# The bridge connection: the job, its initialize answer, its clients (every agent), the callbacks waiting for it,
# our requests in flight, its last stderr lines, Claude sessions' states (sessionId -> {state, reason}).
var S: dict<any> = {job: null_job, info: {}, clients: 0, agents: {}, waiting: [], next: 0, pending: {},
  stderr: [], stopping: false, exit: -1, claude: {}}
# Selection tracking: the debounce timer, the last JSON sent, how many were
# sent, the last window that showed a file.
var T: dict<any> = {timer: 0, last: '', sent: 0, win: 0}

export def Opt(name: string, default: any): any
  return get(g:, 'claude_ide_bridge_' .. name, default)
enddef

# msg's lines with control and bidi characters made visible: it may hold the bridge's or the model's text.
export def Notify(msg: string, level = 'info')
  execute 'echohl' get({error: 'ErrorMsg', warn: 'WarningMsg'}, level, 'None')
  for l in split('claude-ide-bridge: ' .. msg, "\n") | echomsg perm.Clean(l) | endfor
  echohl None
enddef

# The bridge binary: the bin option, else $PATH skipping relative entries and entries inside the workspace,
# never a program in it (Claude writes there: docs/security.md section 15), else :ClaudeCodeInstall's copy;
# none: '', and the user is told how to get one.
export def Bin(): string
  var b = Opt('bin', '')
  if b != '' | return expand(b) | endif
  var ws = resolve(getcwd(-1)) .. '/'
  for d in split($PATH, ':', 1)
    var p = substitute(d, '/\+$', '', '') .. '/claude-ide-bridge'
    if d =~ '^/' && stridx(resolve(d) .. '/', ws) != 0 && executable(p) && !isdirectory(p) && stridx(resolve(p), ws) != 0 | return p | endif
  endfor
  if executable(InstallPath()) | return InstallPath() | endif
  Notify('claude-ide-bridge not found: set g:claude_ide_bridge_bin, put it on $PATH or run :ClaudeCodeInstall (:help claude-ide-bridge-install)', 'error')
  return ''
enddef

export def InstallPath(): string
  return ($XDG_DATA_HOME != '' ? $XDG_DATA_HOME : expand('~/.local/share')) .. '/vim/claude-ide-bridge/bin/claude-ide-bridge'
enddef

export def Running(): bool
  return S.job != null_job && job_status(S.job) == 'run'
enddef

def Ready(): bool
  return Running() && !empty(S.info)
enddef

# One JSON message per line (newline framing). Vim's channel mode "lsp" would frame with Content-Length,
# which serve --stdio also reads, but it takes any incoming message with an id for the answer to its own
# request of that id: the bridge's requests (ids from 1) would be lost.
def Write(msg: dict<any>)
  if Running() | ch_sendraw(S.job, json_encode(extend(msg, {jsonrpc: '2.0'})) .. "\n") | endif
enddef

# Sends a request; Cb(error or {}, result) runs with the answer.
export def Request(method: string, params: dict<any>, Cb: func)
  if !Ready() && method != 'initialize' | Cb({message: 'the bridge is not running (:ClaudeCodeStart)'}, {}) | return | endif
  S.next += 1
  S.pending[S.next] = Cb
  Write({id: S.next, method: method, params: params})
enddef

# Which plugin answers getDiagnostics: 'ale', 'vim-lsp', 'yegappan' or ''.
def DiagSource(): string
  return exists('g:loaded_ale') ? 'ale' : exists('g:lsp_loaded') ? 'vim-lsp' : exists('g:loaded_lsp') ? 'yegappan' : ''
enddef

# Starts the bridge unless it runs; Cb(info) runs once it is ready.
export def Start(Cb: func = null_function): bool
  if Ready() && Cb != null_function | Cb(S.info) | endif
  if Ready() | return true | endif
  if Cb != null_function | add(S.waiting, Cb) | endif
  if Running() | return true | endif
  var bin = Bin()
  if bin == '' | S.waiting = [] | return false | endif
  var diag = DiagSource()
  # Without diagnostics of Vim's own the bridge's language servers answer
  # (under its workspace trust rules).
  var lsp = diag != '' ? [] : mapnew(Opt('lsp', ['auto']), (_, l) => ['--lsp', l])->flattennew()
  extend(S, {stderr: [], stopping: false, info: {}, clients: 0, agents: {}, pending: {}, claude: {}})
  S.job = job_start([bin, 'serve', '--stdio'] + lsp + Opt('bridge_args', []), {
    in_mode: 'nl', out_mode: 'nl', err_mode: 'nl', noblock: true, stoponexit: 'term',
    out_cb: (_, l) => OnLine(l), err_cb: (_, l) => add(S.stderr, l)->len() > 50 ? remove(S.stderr, 0) : 0,
    exit_cb: (j, c) => OnExit(j, c)})
  if job_status(S.job) != 'run'
    extend(S, {job: null_job, waiting: []})
    Notify('cannot start ' .. bin, 'error')
    return false
  endif
  Request('initialize', {name: Opt('ide_name', 'Vim (' .. fnamemodify(getcwd(), ':t') .. ')'),
    pid: getpid(), workspaceFolders: [resolve(getcwd(-1))], positionEncoding: 'utf-8', trackSelection: !!Opt('track_selection', 1),
    capabilities: {openFile: true, showDiff: true, canCloseTabs: true, getOpenEditors: true,
      getCurrentSelection: true, checkDocumentDirty: true, saveDocument: true,
      getDiagnostics: diag != '', executeCode: false, setBufferText: true, diffText: true, lspRequest: false,
      askPermission: type(Opt('permissions', true)) == v:t_list ? Opt('permissions', true) : !!Opt('permissions', true)}},
    (e, r) => OnReady(e, r))
  return true
enddef

def OnReady(e: dict<any>, r: any)
  if !empty(e) || type(r) != v:t_dict | Notify('the bridge did not initialize: ' .. get(e, 'message', string(r)), 'error') | Stop() | return | endif
  S.info = r
  T.last = ''
  Watch()
  Schedule()
  var waiting = S.waiting
  S.waiting = []
  for F in waiting | F(S.info) | endfor
enddef

def OnExit(j: job, code: number)
  if j != S.job | return | endif
  var lock = get(S.info, 'lockPath', '')
  extend(S, {job: null_job, info: {}, clients: 0, agents: {}, exit: code, waiting: [], claude: {}})
  # A bridge that died without cleaning up left its lock naming this Vim: Claude would trust it still.
  if filereadable(lock) && join(readfile(lock)) =~ '"pid":\s*' .. getpid() .. '\D' | delete(lock) | endif
  diff.CloseAllViews()
  perm.CloseAll()
  if code == 0 || S.stopping | return | endif
  Notify(printf('the bridge exited with status %d%s', code, empty(S.stderr) ? '' : ': ' .. S.stderr[-1]), 'error')
enddef

# Stops the bridge: it settles pending diffs (never as accepted), removes its
# lock file and exits when its stdin closes.
export def Stop()
  diff.CloseAllViews()
  perm.CloseAll()
  if S.job == null_job | return | endif
  S.stopping = true
  ch_close_in(S.job)
  var j = S.job
  timer_start(2000, (_) => job_status(j) == 'run' ? job_stop(j) : 0)
enddef

# --- messages from the bridge ------------------------------------------------
def OnLine(line: string)
  var m: any
  try
    m = json_decode(line)
  catch
    return
  endtry
  if type(m) != v:t_dict | return | endif
  var method = get(m, 'method', '')
  var p = type(get(m, 'params', 0)) == v:t_dict ? m.params : {}
  if method == '' && has_key(S.pending, string(get(m, 'id', '')))
    var Cb = remove(S.pending, string(m.id))
    Cb(get(m, 'error', {}), get(m, 'result', {}))
  elseif method =~ '^client\(Connected\|Disconnected\)$'
    S.clients = get(p, 'clients', 0) | S.agents = get(p, 'agents', {})
    if exists('#User#ClaudeCode' .. method[6 :]) | execute 'doautocmd <nomodeline> User ClaudeCode' .. method[6 :] | endif
  elseif method == 'permissionWithdrawn'
    perm.Withdrawn(p)
  elseif method == 'diffsSkipped' && type(get(p, 'message', 0)) == v:t_string
    Notify(p.message, 'warn')   # a Claude writes its edits without diffs
  elseif method == 'claudeState' && type(get(p, 'sessionId', 0)) == v:t_string && type(get(p, 'state', 0)) == v:t_string
    var reason = type(get(p, 'reason', 0)) == v:t_string && p.reason != '' ? ': ' .. p.reason : ''
    if p.state == 'waiting' && get(get(S.claude, p.sessionId, {}), 'state', '') != 'waiting' && &buftype != 'terminal' | Notify('Claude is waiting for you' .. reason, 'warn') | endif
    S.claude = filter(extend(S.claude, {[p.sessionId]: {state: p.state, reason: reason}}), (_, c) => c.state != 'ended')
  elseif has_key(m, 'id') && method != ''
    var answer: dict<any> = {id: m.id}
    try
      if !has_key(HANDLERS, method) | throw 'method not found: ' .. method | endif
      answer.result = HANDLERS[method](p)
    catch
      # A sentence for the user: it reaches Claude as the tool's error.
      answer.error = {code: -32000, message: substitute(v:exception, '^Vim\((\a\+)\)\=:', '', '')}
    endtry
    Write(answer)
  endif
enddef

def NeedPath(p: dict<any>, method: string): string
  if type(get(p, 'filePath', 0)) != v:t_string || p.filePath == '' | throw method .. ' needs filePath' | endif
  return p.filePath
enddef

# The loaded buffer of path, or -1.
export def FindBuf(path: string): number
  for b in getbufinfo({bufloaded: 1})
    if b.name != '' && (b.name == path || resolve(b.name) == resolve(path)) | return b.bufnr | endif
  endfor
  return -1
enddef

def IsFileWin(w: number): bool
  return w > 0 && win_id2win(w) > 0 && win_gettype(w) == '' && sel.IsFile(winbufnr(w)) && !diff.IsDiffWin(w)
enddef

# The window whose selection counts: the current one when it shows a file,
# else the last one that did; 0 when none is left.
def ActiveWin(): number
  return IsFileWin(win_getid()) ? win_getid() : IsFileWin(T.win) ? T.win : 0
enddef

def ActiveSelection(): any
  var w = ActiveWin()
  if w == win_getid() && w > 0 | return sel.Read() | endif
  if w == 0 | return null | endif
  var c = getcurpos(w)
  return extend(sel.Encode('n', {}, {line: c[1] - 1, col: c[2] - 1, off: 0}, [], {}),
    {filePath: fnamemodify(bufname(winbufnr(w)), ':p')})
enddef

# A window to show a file in: the active file window of this tab, else any
# ordinary window of it, else a new split.
def EditorWin(): number
  var w = ActiveWin()
  if w > 0 && win_id2tabwin(w)[0] == tabpagenr() | return w | endif
  for id in gettabinfo(tabpagenr())[0].windows
    if win_gettype(id) == '' && getbufvar(winbufnr(id), '&buftype') != 'terminal' && !diff.IsDiffWin(id) | return id | endif
  endfor
  topleft vsplit
  return win_getid()
enddef

def OpenFile(p: dict<any>): dict<any>
  var path = NeedPath(p, 'openFile')
  if !filereadable(path) && !isdirectory(path) | throw 'cannot open ' .. path .. ': no such file' | endif
  var nr = bufadd(path)
  if get(p, 'makeFrontmost', true) == false
    bufload(nr)
    setbufvar(nr, '&buflisted', 1)
  else
    win_gotoid(EditorWin())
    execute 'buffer' nr
    var r = get(p, 'selection', {})
    if type(r) == v:t_dict && has_key(r, 'start')
      cursor(r.start.line + 1, r.start.character + 1)
      # Visual marks are inclusive: the last selected byte (an end at a line's start: the line before's last).
      var back = r.end.character == 0 && r.end.line > 0
      var [el, ec] = back ? [r.end.line, len(getline(r.end.line))] : [r.end.line + 1, r.end.character]
      if r.start != r.end
        setpos("'<", [nr, r.start.line + 1, r.start.character + 1, 0])
        setpos("'>", [nr, el, max([ec, 1]), 0])
        feedkeys('gv', 'n')
      endif
    endif
  endif
  return {languageId: getbufvar(nr, '&filetype'), lineCount: getbufinfo(nr)[0].linecount}
enddef

def OpenEditors(): dict<any>
  var w = ActiveWin()
  var active = w > 0 ? winbufnr(w) : -1
  return {editors: getbufinfo({buflisted: 1, bufloaded: 1})->filter((_, b) => sel.IsFile(b.bufnr))
    ->map((_, b) => ({filePath: fnamemodify(b.name, ':p'), isActive: b.bufnr == active, isDirty: !!b.changed,
      languageId: getbufvar(b.bufnr, '&filetype'), label: fnamemodify(b.name, ':t')}))}
enddef

def Dirty(p: dict<any>): dict<any>
  var nr = FindBuf(NeedPath(p, 'checkDocumentDirty'))
  return {isOpen: nr > 0, isDirty: nr > 0 && !!getbufvar(nr, '&modified'), isUntitled: false}
enddef

def Save(p: dict<any>): dict<any>
  var path = NeedPath(p, 'saveDocument')
  var nr = FindBuf(path)
  if nr < 0 | return {isOpen: false, saved: false} | endif
  var back = win_getid()
  try
    if empty(win_findbuf(nr))
      # A hidden buffer: written in a window of its own for the moment.
      execute 'keepalt keepjumps silent sbuffer' nr
      silent write
      close
    else
      win_execute(win_findbuf(nr)[0], 'silent write')
    endif
  catch
    throw 'could not save ' .. fnamemodify(path, ':t') .. ': ' .. v:exception
  finally
    win_gotoid(back)
  endtry
  return {isOpen: true, saved: !getbufvar(nr, '&modified')}
enddef

const SEVERITY = {E: 'Error', W: 'Warning', I: 'Info', H: 'Hint', 1: 'Error', 2: 'Warning', 3: 'Info', 4: 'Hint'}

# A diagnostic of Claude's from a quickfix-style item (ALE, yegappan; 1-based
# columns, end column inclusive) or an LSP one (vim-lsp).
def Diag(d: dict<any>): dict<any>
  var [l, c] = [get(d, 'lnum', 1) - 1, max([get(d, 'col', 1) - 1, 0])]
  var out: dict<any> = has_key(d, 'range')
    ? {message: get(d, 'message', ''), severity: get(SEVERITY, get(d, 'severity', 1), 'Error'), range: d.range}
    : {message: get(d, 'text', ''), severity: get(SEVERITY, toupper(get(d, 'type', 'E')), 'Error'),
      range: {start: {line: l, character: c}, end: {line: get(d, 'end_lnum', l + 1) - 1, character: max([get(d, 'end_col', c + 1), c])}}}
  for [k, src] in [['source', 'linter_name'], ['source', 'source'], ['code', 'code']]
    var val = get(d, src, '')
    if (type(val) == v:t_string && val != '') || type(val) == v:t_number
      out[k] = type(val) == v:t_string ? val : string(val)
    endif
  endfor
  return out
enddef

def DiagsOf(nr: number): list<dict<any>>
  var src = DiagSource()
  var raw = []
  if src == 'ale'
    raw = ale#engine#GetLoclist(nr)
  elseif src == 'vim-lsp'
    for r in values(lsp#internal#diagnostics#state#_get_all_diagnostics_grouped_by_server_for_uri(lsp#utils#get_buffer_uri(nr)))
      raw += get(get(r, 'params', {}), 'diagnostics', [])
    endfor
  elseif src == 'yegappan'
    raw = lsp#diag#GetDiagsForBuf(nr)
  endif
  return mapnew(raw, (_, d) => Diag(d))
enddef

def Diagnostics(p: dict<any>): dict<any>
  if type(get(p, 'filePath', 0)) == v:t_string && p.filePath != ''
    var nr = FindBuf(p.filePath)
    return {files: [{filePath: p.filePath, diagnostics: nr < 0 ? [] : DiagsOf(nr)}]}
  endif
  return {files: getbufinfo({bufloaded: 1})->filter((_, b) => sel.IsFile(b.bufnr))
    ->map((_, b) => ({filePath: fnamemodify(b.name, ':p'), diagnostics: DiagsOf(b.bufnr)}))
    ->filter((_, f) => !empty(f.diagnostics))}
enddef

# --- selection tracking --------------------------------------------------------
export def Schedule()
  if !Ready() || !Opt('track_selection', 1) | return | endif
  WinEntered()
  timer_stop(T.timer)
  T.timer = timer_start(Opt('selection_debounce_ms', 50), (_) => Flush())
enddef

def Flush()
  if !Ready() || !IsFileWin(win_getid()) | return | endif
  T.win = win_getid()
  var s = sel.Read()
  var key = json_encode(s)
  if empty(s) || key == T.last | return | endif
  T.last = key
  T.sent += 1
  # The text encoded once (it may be megabytes): the key is the params.
  ch_sendraw(S.job, '{"jsonrpc":"2.0","method":"selectionChanged","params":' .. key .. "}\n")
enddef

export def WinEntered()
  if IsFileWin(win_getid()) | T.win = win_getid() | endif
enddef

# --- buffers follow the disk ---------------------------------------------------
# While the bridge runs, a timer runs :checktime for each loaded file buffer (without a number it skips
# hidden ones); FileChangedShell reloads an unmodified buffer at once and keeps a modified one with one
# warning naming the file (per change on disk). Vim's own check still guards the next :w.

var watch = 0
def Watch()
  if watch == 0 | watch = timer_start(Opt('watch_ms', 500), (_) => CheckTime(), {repeat: -1}) | endif
enddef

export def CheckTime()
  if !Running() || getcmdwintype() != '' || mode() =~ '^[cr]' | return | endif
  for b in getbufinfo({bufloaded: 1})
    if sel.IsFile(b.bufnr) | silent! execute 'checktime' b.bufnr | endif
  endfor
enddef

export def FileChanged()
  if !Running() | v:fcs_choice = 'ask' | return | endif  # Vim's own handling without the bridge
  var nr = str2nr(expand('<abuf>'))
  var name = fnamemodify(bufname(nr), ':~:.')
  var msg = v:fcs_reason == 'deleted' ? name .. ' was deleted on disk; the buffer keeps its text'
    : getbufvar(nr, '&modified') ? name .. ' changed on disk; your unsaved changes are kept (:edit! loads the new text)' : ''
  v:fcs_choice = msg == '' && v:fcs_reason != 'mode' ? 'reload' : ''
  # Later: under :silent checktime a message would not reach the history.
  if msg != '' | timer_start(0, (_) => Notify(msg, 'warn')) | endif
enddef

# --- commands -------------------------------------------------------------------
# Sends an @-mention: 0-based inclusive lines, or the whole file (-1).
export def AtMention(path: string, first = -1, last = -1)
  var params: dict<any> = first < 0 ? {filePath: path} : {filePath: path, lineStart: first, lineEnd: max([last, first])}
  Start((_) => Request('atMentioned', params, (e, r) => {
    if !empty(e)
      Notify('could not send ' .. path .. ': ' .. get(e, 'message', ''), 'error')
    elseif type(r) == v:t_dict && get(r, 'held', false)
      Notify('no Claude is connected yet; the mention is held for it')
    endif
  }))
enddef

export def Send(range: number, line1: number, line2: number)
  if !sel.IsFile(bufnr()) | Notify('this buffer is not a file', 'warn') | return | endif
  # From Visual mode without a range (a <Cmd> mapping): its lines.
  var vis = range == 0 && sel.VisualType(mode()) != ''
  var [a, b] = vis ? sort([line('v'), line('.')], 'n') : [line1, line2]
  if vis | execute "normal! \<Esc>" | endif
  AtMention(expand('%:p'), range > 0 || vis ? a - 1 : -1, b - 1)
enddef

export def Add(...args: list<string>)
  var path = fnamemodify(expand(args[0]), ':p')->substitute('.\zs/\+$', '', '')
  var n = mapnew(args[1 :], (_, a) => a =~ '^\d\+$' ? str2nr(a) : 0)
  if !filereadable(path) && !isdirectory(path)
    Notify('no such file: ' .. args[0], 'error')
  elseif len(n) > 2 || index(n, 0) >= 0 || (len(n) == 2 && n[1] < n[0])
    Notify('usage: :ClaudeCodeAdd <path> [start] [end] (1-based lines, start <= end)', 'error')
  else
    AtMention(path, empty(n) ? -1 : n[0] - 1, empty(n) ? -1 : n[-1] - 1)
  endif
enddef

export def CloseAllDiffs()
  Request('closeAllDiffs', {}, (e, r) => {
    if !empty(e) | Notify('close all diffs: ' .. get(e, 'message', ''), 'error') | return | endif
    var restored = get(r, 'restored', [])
    Notify(printf('closed %d diff(s)', get(r, 'closed', 0)) .. (empty(restored) ? '' : '; accepted text left unsaved in ' .. join(restored, ', ')))
  })
enddef

export def Status()
  if !Ready() | Notify(Running() ? 'the bridge is starting' : 'the bridge is not running') | return | endif
  Request('status', {}, (e, r) => {
    if !empty(e) | Notify('status: ' .. get(e, 'message', ''), 'error') | return | endif
    Notify(join([printf('port %s, %s, lock %s', get(r, 'port', ''), get(r, 'clientsLine', ''), get(r, 'lockPath', ''))]
      + mapnew(values(S.claude), (_, c) => 'claude: ' .. c.state .. c.reason)
      + mapnew(get(r, 'diffs', []), (_, d) => printf('diff %s (%s): %s', get(d, 'tabName', ''), get(d, 'filePath', ''), get(d, 'state', ''))), "\n"))
  })
enddef

# :ClaudeCode, :ClaudeCodeFocus (agent claude) and :ClaudeCodeAgent: agent's terminal (terminal.vim).
export def Toggle(focus: bool, agent: string, ...args: list<string>)
  Start((_) => WithCommand(agent, args, (cmd, env, line) => term.Open(agent, focus, args, cmd, env, line)))
enddef

# :ClaudeCodeAgent's completion: the agents besides claude the bridge may serve, for the first argument.
export def Agents(_: string, line: string, _: number): string
  return line =~ '^\S\+\s\+\S*$' ? "gemini\nqwen" : ''
enddef

var notice_told = false

# Calls Done(cmd, env, line) with the command that runs agent as the bridge composes it (claudeCommand:
# for claude the permission flag, its hooks, --mcp-config); its notice (edits skip diffs) is shown once.
# A String terminal_cmd (claude's) stays a shell command line, its first word the program the bridge found.
def WithCommand(agent: string, args: list<string>, Done: func)
  var base = agent == 'claude' ? Opt('terminal_cmd', 'claude') : []
  var words = type(base) == v:t_list ? base : split(base)
  var p: dict<any> = {agent: agent, command: words, modelTools: !!Opt('model_tools', 1), args: args}
  var opt = Opt('permission_mode', null)
  if type(opt) == v:t_string && opt != ''
    p.permissionMode = opt
  elseif type(opt) != v:t_none
    p.permissionMode = false
  endif
  Request('claudeCommand', p, (e, c) => {
    if !empty(e) || type(c) != v:t_dict | Notify(agent .. "'s command line: " .. get(e, 'message', ''), 'error') | return | endif
    if get(c, 'notice', '') != '' && !notice_told
      notice_told = true
      Notify(c.notice .. '. :help claude-ide-bridge-permission-mode', 'warn')
    endif
    var cmd: list<string> = c.argv
    if type(base) != v:t_list
      var line = empty(words) || c.argv[0] == words[0] ? base : shellescape(c.argv[0]) .. substitute(base, '^\s*\S\+', '', '')
      cmd = [&shell, &shellcmdflag, line .. ' ' .. join(mapnew(c.argv[len(words) :], (_, a) => shellescape(a)), ' ')]
    endif
    Done(cmd, c.env, c.shell)
  })
enddef

# For statuslines and tests; asks the bridge nothing.
export def State(): dict<any>
  return {running: Running(), ready: Ready(), port: get(S.info, 'port', 0), lockPath: get(S.info, 'lockPath', ''),
    mcpConfig: get(S.info, 'mcpConfig', ''), clients: S.clients, agents: S.agents, diffs: diff.List(), sent: T.sent, last: T.last,
    exit: S.exit, stderr: S.stderr, terminal: term.Running(), terminals: term.RunningAgents(), permissions: len(perm.List()),
    claude: values(S.claude)}
enddef

# :ClaudeCodeTrust[!] [dir]: the bridge starts language servers only in a
# folder trusted in its store (`claude-ide-bridge trust`; ! revokes).
export def Trust(revoke: bool, dir: string)
  var bin = Bin()
  if bin == '' | return | endif
  var argv = [bin, 'trust'] + (revoke ? ['--revoke'] : []) + [fnamemodify(expand(dir == '' ? getcwd(-1) : dir), ':p')]
  var out = trim(system(join(mapnew(argv, (_, a) => shellescape(a)), ' ')))
  var ok = v:shell_error == 0
  Notify((out != '' ? out : 'claude-ide-bridge trust exited with status ' .. v:shell_error) .. (ok && !revoke
    ? "\nThe bridge starts language servers there from now on (a running one: after :ClaudeCodeStop and :ClaudeCodeStart)." : ''), ok ? 'info' : 'error')
enddef

export def DirChanged()
  if Ready() | Write({method: 'workspaceFoldersChanged', params: {folders: [resolve(getcwd(-1))]}}) | endif
enddef

# The bridge's requests (after the functions they name).
const HANDLERS = {
  openFile: OpenFile, getOpenEditors: (_) => OpenEditors(), checkDocumentDirty: Dirty, saveDocument: Save,
  getCurrentSelection: (_) => ({selection: ActiveSelection()}), getDiagnostics: Diagnostics,
  askPermission: (p) => perm.Ask(p),
  showDiff: (p) => diff.Show(p), closeDiff: (p) => diff.Close(p), diffText: (p) => diff.Text(p), setBufferText: (p) => diff.SetBufferText(p),
}
