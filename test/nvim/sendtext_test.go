package nvimtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 28 item 6: ":ClaudeCodeSendText (text or the selection into Claude's prompt, as a
// bracketed paste)". What reaches Claude's terminal, byte for byte (the stand-in reads its pty
// raw): a range's lines as one paste, not submitted, focus then in Claude's terminal; text
// arguments as one paste then Enter; with ! no Enter.
func TestSendText(t *testing.T) {
	out := filepath.Join(t.TempDir(), "typed")
	e := newEnv(t, map[string]any{"model_tools": false, "permission_mode": false,
		"terminal_cmd": []string{"sh", "-c", "stty raw -echo; exec cat > " + out}}, false)
	path := e.file(t, "a.go", "one\ntwo\nthree\n")
	e.edit(t, path)
	e.n.ex(t, "ClaudeCode")
	e.waitWhere(t, "terminal t")
	e.n.input(t, `<C-\><C-n><C-w>p`)
	e.n.waitLua(t, `""`, `return vim.bo.buftype`)
	e.n.ex(t, "2,3ClaudeCodeSendText")
	e.n.waitLua(t, `"terminal"`, `return vim.bo.buftype`)
	e.n.ex(t, "ClaudeCodeSendText explain /this")
	e.n.ex(t, "ClaudeCodeSendText! no enter")
	want := "\x1b[200~two\nthree\x1b[201~" + "\x1b[200~explain /this\x1b[201~\r" + "\x1b[200~no enter\x1b[201~"
	var got string
	if !poll(func() bool { b, _ := os.ReadFile(out); got = string(b); return got == want }) {
		t.Fatalf("Claude's terminal got %q, want %q", got, want)
	}
	// No terminal: a notice, nothing raised.
	e.n.ex(t, "ClaudeCodeClose")
	e.n.ex(t, "ClaudeCodeSendText hello")
	e.n.waitLua(t, `true`, `return vim.fn.execute("messages"):find("no Claude terminal is running", 1, true) ~= nil`)
	_ = strings.Contains
}
