vim9script
# The terminals of :ClaudeCode (agent 'claude') and :ClaudeCodeAgent, one per agent: the CLI with
# the bridge's environment in Vim's :terminal ('vim'), in a command of the user's ('external':
# external_cmd with %s for the command line), or nowhere ('none': run it, then /ide).

import autoload 'claude_ide_bridge.vim' as cib

# agent -> its terminal buffer
var bufs: dict<number> = {}

export def Running(agent = 'claude'): bool
  return bufexists(get(bufs, agent, -1)) && term_getstatus(bufs[agent]) =~ 'running'
enddef

# The agents whose terminal runs here, sorted.
export def RunningAgents(): list<string>
  return sort(filter(keys(bufs), (_, a) => Running(a)))
enddef

def TermWin(agent: string): number
  var ws = filter(win_findbuf(get(bufs, agent, -1)), (_, w) => win_id2tabwin(w)[0] == tabpagenr())
  return empty(ws) ? 0 : ws[0]
enddef

def Split()
  var how = cib.Opt('split', 'botright vertical')
  var total = how =~ 'vert' ? &columns : &lines
  execute printf(':%s :%dnew', how, max([float2nr(total * cib.Opt('size', 0.35)), how =~ 'vert' ? 20 : 5]))
enddef

# Shows agent's terminal (focus false: hides it when its window is the current one); an agent
# that exited is started again. args: the user's; cmd, env: the bridge's (claudeCommand); line: for a shell.
export def Open(agent: string, focus: bool, args: list<string>, cmd: list<string>, env: dict<string>, line: string)
  var kind = cib.Opt('terminal', 'vim')
  if kind == 'none' | cib.Notify('start ' .. agent .. ' yourself with ' .. line .. ', then /ide') | return | endif
  if kind == 'external' | External(cmd, env) | return | endif
  var w = TermWin(agent)
  if !focus && w == win_getid() && Running(agent) && empty(args) | hide | return | endif
  if !empty(args) && Running(agent)
    cib.Notify(agent .. ' is already running; close it (:ClaudeCodeClose ' .. agent .. ') to start one with ' .. join(args, ' '), 'warn')
  endif
  if w > 0 | win_gotoid(w) | else | Split() | endif
  if Running(agent) | execute 'buffer' bufs[agent] | return | endif
  # Not started yet, or it exited: a new one in place of the old buffer (no term_kill: :qa gives E947).
  var old = get(bufs, agent, -1)
  bufs[agent] = term_start(cmd, {curwin: true, env: env, term_name: agent, norestore: true})
  setbufvar(bufs[agent], '&bufhidden', 'hide') | setbufvar(bufs[agent], '&buflisted', 0)
  if bufexists(old) && old != bufs[agent] | silent! execute 'bwipeout!' old | endif
enddef

def External(cmd: list<string>, env: dict<string>)
  var line = 'env ' .. join(mapnew(sort(keys(env)), (_, k) => shellescape(k .. '=' .. env[k])), ' ')
    .. ' ' .. join(mapnew(cmd, (_, a) => shellescape(a)), ' ')
  var tmpl = cib.Opt('external_cmd', '')
  if tmpl !~ '%s' | cib.Notify('g:claude_ide_bridge_external_cmd needs %s for the command line', 'error') | return | endif
  job_start([&shell, &shellcmdflag, substitute(tmpl, '%s', escape(line, '\&'), '')], {env: env, stoponexit: ''})
enddef

# :ClaudeCodeClose [agent]: stops the agent of Vim's terminal (claude's by default).
export def Close(agent = 'claude')
  if bufexists(get(bufs, agent, -1)) | silent! execute 'bwipeout!' remove(bufs, agent) | endif
enddef
