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
	e.n.lua(t, `_G.NVT_sent = {}
		local orig = vim.fn.chansend
		vim.fn.chansend = function(ch, data)
			local b = require("claude-ide-bridge.terminal").buf()
			if b and ch == vim.b[b].terminal_job_id then table.insert(_G.NVT_sent, data) end
			return orig(ch, data)
		end`)
	e.n.ex(t, "ClaudeCode")
	e.waitWhere(t, "terminal t")
	e.n.input(t, `<C-\><C-n><C-w>p`)
	e.n.waitLua(t, `""`, `return vim.bo.buftype`)
	e.n.ex(t, "2,3ClaudeCodeSendText")
	e.n.waitLua(t, `"terminal"`, `return vim.bo.buftype`)
	e.n.ex(t, "ClaudeCodeSendText explain /this")
	e.n.ex(t, "ClaudeCodeSendText! no enter")
	// A <Cmd> mapping from Visual mode (the docs' <leader>ap): exactly the selection.
	e.n.input(t, `<C-\><C-n><C-w>p`)
	e.n.waitLua(t, `""`, `return vim.bo.buftype`)
	e.n.input(t, `ggvjl<Cmd>ClaudeCodeSendText<CR>`)
	e.n.waitLua(t, `"terminal"`, `return vim.bo.buftype`)
	want := "\x1b[200~two\nthree\x1b[201~" + "\x1b[200~explain /this\x1b[201~\r" + "\x1b[200~no enter\x1b[201~" + "\x1b[200~one\ntw\x1b[201~"
	// What the plugin wrote to the channel, exactly (recorded by a wrapper that passes it on).
	var sent []string
	e.n.luaInto(t, &sent, `return _G.NVT_sent`)
	if got := strings.Join(sent, ""); got != want {
		t.Fatalf("chansend got %q, want %q", got, want)
	}
	// And what reached the program in the terminal (its pty in raw mode; Neovim 0.12 was seen
	// turning the CR into a NL there and adding focus reports after it: compared without those).
	norm := func(s string) string {
		s = strings.ReplaceAll(s, "\r", "\n")
		for _, f := range []string{"\x1b[I", "\x1b[O"} {
			s = strings.ReplaceAll(s, f, "")
		}
		return strings.TrimSuffix(s, "\x1b")
	}
	var got string
	if !poll(func() bool { b, _ := os.ReadFile(out); got = string(b); return norm(got) == norm(want) }) {
		t.Fatalf("Claude's terminal got %q, want %q", got, want)
	}
	// No terminal: a notice, nothing raised.
	e.n.ex(t, "ClaudeCodeClose")
	e.n.ex(t, "ClaudeCodeSendText hello")
	e.n.waitLua(t, `true`, `return vim.fn.execute("messages"):find("no Claude terminal is running", 1, true) ~= nil`)
}
