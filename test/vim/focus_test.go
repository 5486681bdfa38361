package vimtest

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// where is the current window's kind and Vim's mode: "terminal t" (typing to Claude),
// "terminal n" (Terminal-Normal mode), "file n".
func (v *vim) where() string {
	return v.str(`(&buftype == 'terminal' ? 'terminal' : expand('%:t') == 'a.txt' ? 'file' : bufname()) .. ' ' .. mode()`)
}

// typedToClaude is what Claude's terminal (cat, which echoes) shows.
func (v *vim) typedToClaude() string {
	return v.str(`join(map(range(1, term_getsize(term_list()[0])[0]), {_, n -> term_getline(term_list()[0], n)}))`)
}

// Issue 39 item 3: "Focus goes back to Claude's terminal in terminal mode after a diff closes, so
// the Ex command typed next goes to Claude: in Vim, the `:q!` that docs/vim.md recommends ended
// the Claude session". After a diff closes (accepted then closed by Claude, rejected, or closed by
// Claude), focus is back in the window the user was in when it opened, in Normal mode (Claude's
// terminal in Terminal-Normal mode), and the `:` command typed next runs in Vim: Claude gets
// nothing. A diff that opens while the user types to Claude does not take the focus. Real keys.
func TestFocusAfterDiff(t *testing.T) {
	for _, c := range []struct{ name, from, decide string }{
		{"file-reject", "file n", ":q"},
		{"file-accept", "file n", ":w"},
		{"terminal-reject", "terminal t", ":q"},
		{"terminal-accept", "terminal t", ":w"},
		{"terminal-closed-by-claude", "terminal t", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := startVim(t, "let g:claude_ide_bridge_terminal_cmd = ['sh', '-c', 'exec cat', 'sh']")
			cl := v.claude()
			path := v.file("a.txt", "old\n")
			v.ex("edit " + path)
			v.ex("ClaudeCode")
			v.waitEval(`"terminal t"`, `(&buftype == 'terminal' ? 'terminal' : 'x') .. ' ' .. mode()`)
			if c.from == "file n" {
				v.keys("C-w", "p")
				v.waitEval(`""`, "&buftype")
			}
			if got := v.where(); got != c.from {
				t.Fatalf("before the diff: %q, want %q", got, c.from)
			}
			ch := openDiff(t, cl, path, "new\n", tabA)
			v.waitDiffs(tabA + "=pending")
			if c.from == "terminal t" {
				// Typing to Claude: the diff waits in its tab page; the user is told how to get there.
				if got := v.where(); got != "terminal t" {
					t.Fatalf("the diff took the focus from Claude's terminal: %q", got)
				}
				if m := v.messages(); !strings.Contains(m, "ClaudeCodeDiffAccept") || !strings.Contains(m, "a.txt") {
					t.Fatalf("no message names the diff and how to answer it:\n%s", m)
				}
				v.keys("C-w")
				v.typeText("gt")
			}
			v.waitEval(`"acwrite"`, "&buftype")
			v.normal()
			if c.decide != "" {
				v.typeText(c.decide)
				v.keys("Enter")
			}
			switch c.decide {
			case ":w":
				wantTexts(t, ch, "FILE_SAVED", "new\n")
				cl.Tool(testbin.Ctx(t), "close_tab", map[string]any{"tab_name": tabA})
			case ":q":
				wantTexts(t, ch, "DIFF_REJECTED", tabA)
			default:
				cl.Tool(testbin.Ctx(t), "close_tab", map[string]any{"tab_name": tabA})
			}
			v.waitDiffs()
			want := strings.Replace(c.from, " t", " n", 1)
			if !harness.Poll(15*time.Second, func() bool { return v.where() == want }) {
				t.Fatalf("after the diff: %q, want %q", v.where(), want)
			}
			v.typeText(":let g:typed = 1")
			v.keys("Enter")
			v.waitEval("1", "get(g:, 'typed', 0)")
			if s := v.typedToClaude(); strings.Contains(s, "typed") {
				t.Fatalf("Claude's terminal got the command: %q", s)
			}
		})
	}
}
