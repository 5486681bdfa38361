vim9script
# claude-ide-bridge: Claude Code's IDE integration for Vim 9 (:help claude-ide-bridge).
if exists('g:loaded_claude_ide_bridge') || v:version < 900 || !has('channel') || !has('job') || !has('timers')
  finish
endif
g:loaded_claude_ide_bridge = 1

import autoload 'claude_ide_bridge.vim' as cib
import autoload 'claude_ide_bridge/diff.vim'
import autoload 'claude_ide_bridge/terminal.vim' as term
import autoload 'claude_ide_bridge/install.vim'
import autoload 'claude_ide_bridge/permission.vim' as perm

command -nargs=* ClaudeCode cib.Toggle(false, 'claude', <f-args>)
command -nargs=* ClaudeCodeFocus cib.Toggle(true, 'claude', <f-args>)
command -nargs=+ -complete=custom,claude_ide_bridge#Agents ClaudeCodeAgent cib.Toggle(true, <f-args>)
command -nargs=? -complete=custom,claude_ide_bridge#Agents ClaudeCodeClose term.Close(<f-args>)
command ClaudeCodeStart cib.Start()
command ClaudeCodeStop cib.Stop()
command ClaudeCodeStatus cib.Status()
command -bang -nargs=? -complete=dir ClaudeCodeTrust cib.Trust(<bang>0, <q-args>)
command -range ClaudeCodeSend cib.Send(<range>, <line1>, <line2>)
command -nargs=+ -complete=file ClaudeCodeAdd cib.Add(<f-args>)
command ClaudeCodeDiffAccept diff.Decide(true)
command ClaudeCodeDiffDeny diff.Decide(false)
command ClaudeCodeCloseAllDiffs cib.CloseAllDiffs()
command ClaudeCodePermissions perm.Command()
command ClaudeCodeInstall install.Install()
command -nargs=? ClaudeCodeReview tabnew | term_start([cib.Bin(), 'review'] + (<q-args> =~ '^\d\+$' ? ['--turn', <q-args>] : []), {curwin: true})

augroup ClaudeIdeBridge
  autocmd!
  autocmd CursorMoved,CursorMovedI,ModeChanged,BufEnter,WinEnter,TextChanged * cib.Schedule()
  autocmd WinEnter,BufEnter * cib.WinEntered()
  autocmd FileChangedShell * cib.FileChanged()
  autocmd DirChanged * cib.DirChanged()
  autocmd VimLeavePre * cib.Stop()
  if get(g:, 'claude_ide_bridge_auto_start', 1)
    autocmd VimEnter * ++once cib.Start()
  endif
augroup END
