package nvimtest

import (
	"strings"
	"testing"
)

// shownNotices is what the notice float shows now (notice.lua).
func (e *env) shownNotices(t *testing.T) []string {
	t.Helper()
	var out []string
	e.n.luaInto(t, &out, `local s = require("claude-ide-bridge.notice").shown()
		return #s > 0 and s or vim.NIL`)
	return out
}

func (e *env) waitNotice(t *testing.T, parts ...string) string {
	t.Helper()
	var got []string
	ok := poll(func() bool {
		got = e.shownNotices(t)
		for _, s := range got {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(s, p)
			}
			if all {
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatalf("no notice shown with %q; shown: %q", parts, got)
	}
	return strings.Join(got, "\n")
}

// Issue 28 item 1: "A buffer with unsaved changes makes the diff silently not open: Claude says
// 'Opened changes in Neovim', nothing opens, and the reason goes only to Claude". The refusal
// tells the user at once, naming the file and what to do, where the user looks: Claude's
// terminal has focus (terminal mode), so in the notice float, and in :messages.
func TestNoticeRefusedDiffWhileInTerminal(t *testing.T) {
	e := newEnv(t, map[string]any{"terminal_cmd": []string{"cat"}, "model_tools": false, "permission_mode": false}, true)
	path := e.file(t, "a.txt", "old\n")
	e.edit(t, path)
	e.n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, -1, false, {"edited, unsaved"})`)
	e.n.ex(t, "ClaudeCode")
	e.n.waitLua(t, `"t"`, `return vim.api.nvim_get_mode().mode`)
	r := toolOf(t, await(t, e.openDiff(t, path, "new\n", tabA)))
	if !r.IsError || !strings.Contains(strings.Join(r.texts(), " "), "unsaved changes") {
		t.Fatalf("openDiff answered %q (isError %v), want the refusal", r.texts(), r.IsError)
	}
	e.waitNotice(t, "a.txt", "unsaved changes", ":w")
	msgs := e.n.str(t, `return vim.fn.execute("messages")`)
	if !strings.Contains(msgs, "a.txt") || !strings.Contains(msgs, "unsaved changes") {
		t.Fatalf(":messages lacks the refusal:\n%s", msgs)
	}
	// Still in the terminal: the notice did not take focus.
	if mode := e.n.str(t, `return vim.api.nvim_get_mode().mode`); mode != "t" {
		t.Fatalf("mode %q after the notice, want t", mode)
	}
}

// Issue 28 item 1: "'claude is already running; :ClaudeCodeClose it first') are hidden the same
// way": raised just before the terminal takes focus, the notice is shown once focus settles there.
func TestNoticeBeforeTerminalFocus(t *testing.T) {
	e := newEnv(t, map[string]any{"terminal_cmd": []string{"cat"}, "model_tools": false, "permission_mode": false}, false)
	e.n.ex(t, "ClaudeCode")
	e.n.waitLua(t, `"t"`, `return vim.api.nvim_get_mode().mode`)
	e.n.input(t, `<C-\><C-n><C-w>p`)
	e.n.waitLua(t, `""`, `return vim.bo.buftype`)
	e.n.ex(t, "ClaudeCode --resume")
	e.waitNotice(t, "already running", ":ClaudeCodeClose")
	e.n.waitLua(t, `"terminal"`, `return vim.bo.buftype`)
}
