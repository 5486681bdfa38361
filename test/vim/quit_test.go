package vimtest

import (
	"testing"
)

// Issue 39 item 8: "`:qa` silently kills a running Claude". With Claude running in Vim's terminal
// (hidden or shown), :qa is refused with Vim's E947 naming Claude's buffer; Vim and Claude go on.
// Real keys (tmux).
func TestQuitAllKeepsClaude(t *testing.T) {
	t.Parallel()
	for _, hidden := range []bool{false, true} {
		v := startVim(t, "let g:claude_ide_bridge_terminal_cmd = ['sh', '-c', 'exec cat', 'sh']")
		v.claude()
		v.ex("ClaudeCode")
		v.waitEval(`"running"`, `term_getstatus(term_list()[0])`)
		v.keys("C-w", "p")
		v.waitEval(`""`, "&buftype")
		if hidden {
			v.ex("only")
		}
		v.typeText(":qa")
		v.keys("Enter")
		v.waitEval("1", `v:errmsg =~ '^E947:.*claude' ? 1 : 0`)
		v.waitEval(`"running"`, `term_getstatus(term_list()[0])`)
	}
}
