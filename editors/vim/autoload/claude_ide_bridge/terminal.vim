vim9script
# The :ClaudeCode terminal: the CLI with the bridge's environment in Vim's
# :terminal ('vim'), in a command of the user's ('external': external_cmd with
# %s for the command line), or nowhere ('none': run claude, then /ide).

import autoload 'claude_ide_bridge.vim' as cib

var tbuf = -1

export def Running(): bool
  return tbuf > 0 && bufexists(tbuf) && term_getstatus(tbuf) =~ 'running'
enddef

def TermWin(): number
  var ws = tbuf < 0 ? [] : filter(win_findbuf(tbuf), (_, w) => win_id2tabwin(w)[0] == tabpagenr())
  return empty(ws) ? 0 : ws[0]
enddef

def Split()
  var how = cib.Opt('split', 'botright vertical')
  var total = how =~ 'vert' ? &columns : &lines
  execute printf(':%s :%dnew', how, max([float2nr(total * cib.Opt('size', 0.35)), how =~ 'vert' ? 20 : 5]))
enddef

# :ClaudeCode (focus false: hides claude when its window is the current one)
# and :ClaudeCodeFocus; a claude that exited is started again.
# args: the user's; cmd, env: claude's (claudeCommand); line: for a shell.
export def Open(focus: bool, args: list<string>, cmd: list<string>, env: dict<string>, line: string)
  var kind = cib.Opt('terminal', 'vim')
  if kind == 'none' | cib.Notify('start claude yourself with ' .. line .. ', then /ide') | return | endif
  if kind == 'external' | External(cmd, env) | return | endif
  var w = TermWin()
  if !focus && w == win_getid() && Running() && empty(args) | hide | return | endif
  if !empty(args) && Running()
    cib.Notify('claude is already running; :ClaudeCodeClose it to start one with ' .. join(args, ' '), 'warn')
  endif
  if w > 0 | win_gotoid(w) | else | Split() | endif
  if Running() | execute 'buffer' tbuf | return | endif
  # Not started yet, or it exited: a new claude in place of the old buffer (no term_kill: :qa gives E947).
  var old = tbuf
  tbuf = term_start(cmd, {curwin: true, env: env, term_name: 'claude', norestore: true})
  setbufvar(tbuf, '&bufhidden', 'hide') | setbufvar(tbuf, '&buflisted', 0)
  if old > 0 && bufexists(old) && old != tbuf | silent! execute 'bwipeout!' old | endif
enddef

def External(cmd: list<string>, env: dict<string>)
  var line = 'env ' .. join(mapnew(sort(keys(env)), (_, k) => shellescape(k .. '=' .. env[k])), ' ')
    .. ' ' .. join(mapnew(cmd, (_, a) => shellescape(a)), ' ')
  var tmpl = cib.Opt('external_cmd', '')
  if tmpl !~ '%s' | cib.Notify("g:claude_ide_bridge_external_cmd needs %s for claude's command line", 'error') | return | endif
  job_start([&shell, &shellcmdflag, substitute(tmpl, '%s', escape(line, '\&'), '')], {env: env, stoponexit: ''})
enddef

# :ClaudeCodeClose: stops the claude of Vim's terminal.
export def Close()
  if tbuf > 0 && bufexists(tbuf) | silent! execute 'bwipeout!' tbuf | endif
  tbuf = -1
enddef
