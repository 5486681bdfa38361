package vimtest

import (
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/testbin"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// where is the current window's kind and Vim's mode: "terminal t" (typing to Claude),
// "file n".
func (v *vim) where() string {
	return v.str(`(&buftype == 'terminal' ? 'terminal' : expand('%:t') == 'a.txt' ? 'file' : bufname()) .. ' ' .. mode()`)
}

// Issue 28 item 3's rule, in Vim (a guard for issue 39 item 3): after a diff the user decided
// closes, focus is back where the user was when it opened, in the mode they were in: never in
// Claude's terminal typing to Claude when they were in the file (their next `:` command would go
// to Claude), and back typing to Claude when that is what they were doing. Real keys (tmux).
func TestFocusAfterDiff(t *testing.T) {
	for _, c := range []struct{ name, from, decide string }{
		{"file-reject", "file n", ":q"},
		{"file-accept", "file n", ":w"},
		{"terminal-reject", "terminal t", ":q"},
	} {
		t.Run(c.name, func(t *testing.T) {
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
			v.waitEval(`"acwrite"`, "&buftype")
			v.normal()
			v.typeText(c.decide)
			v.keys("Enter")
			if c.decide == ":w" {
				wantTexts(t, ch, "FILE_SAVED", "new\n")
				cl.Tool(testbin.Ctx(t), "close_tab", map[string]any{"tab_name": tabA})
			} else {
				wantTexts(t, ch, "DIFF_REJECTED", tabA)
			}
			v.waitDiffs()
			if !harness.Poll(15*time.Second, func() bool { return v.where() == c.from }) {
				t.Fatalf("after the diff: %q, want %q", v.where(), c.from)
			}
		})
	}
}
