package nvimtest

import (
	"strings"
	"testing"
)

// where is the current window's buffer kind and the mode: "terminal t" (typing to Claude),
// "terminal nt" (Normal mode in Claude's terminal), "file n", "file i".
func (e *env) where(t *testing.T) string {
	t.Helper()
	return e.n.str(t, `local kind = vim.bo.buftype == "terminal" and "terminal" or (vim.api.nvim_buf_get_name(0):find("a%.txt$") and "file" or vim.api.nvim_buf_get_name(0))
		return kind .. " " .. vim.api.nvim_get_mode().mode`)
}

func (e *env) waitWhere(t *testing.T, want string) {
	t.Helper()
	var got string
	if !poll(func() bool { got = e.where(t); return got == want }) {
		t.Fatalf("focus %q, want %q", got, want)
	}
}

// Issue 39 item 3: "Focus goes back to Claude's terminal in terminal mode after a diff closes, so
// the Ex command typed next goes to Claude". After a diff the user looked at closes (accepted then
// closed by Claude, rejected, or closed by Claude), focus is back in the window the user was in
// when it opened, in Normal mode, also when that is Claude's terminal: the `:` command typed next
// runs in Neovim and Claude (cat) gets nothing. A diff that opens while the user types to Claude
// does not take the focus and says where it is. Real keys: Neovim's UI in tmux.
func TestFocusAfterDiff(t *testing.T) {
	cases := []struct{ name, from, decide string }{
		{"terminal-accept", "terminal t", ":w"},
		{"terminal-reject", "terminal t", ":q"},
		{"terminal-closed-by-claude", "terminal t", ""},
		{"file-reject", "file n", ":q"},
		{"file-accept", "file n", ":w"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnvTmux(t, map[string]any{"terminal_cmd": []string{"cat"}, "model_tools": false, "permission_mode": false})
			e.n.lua(t, keepNotes)
			path := e.file(t, "a.txt", "old\n")
			e.edit(t, path)
			e.n.ex(t, "ClaudeCode")
			e.waitWhere(t, "terminal t")
			if c.from == "file n" {
				e.n.keys(t, `C-\`, "C-n", "C-w", "p")
				e.waitWhere(t, "file n")
			}
			ch := e.openDiff(t, path, "new\n", tabA)
			e.waitDiffs(t, tabA+"=pending")
			if c.from == "terminal t" {
				e.waitWhere(t, "terminal t")
				if n := e.n.str(t, `return table.concat(_G.NOTES, "\n")`); !strings.Contains(n, "a.txt in tab page 2") || !strings.Contains(n, ":ClaudeCodeDiffAccept") {
					t.Fatalf("no message names the diff and how to answer it: %q", n)
				}
				e.n.keys(t, `C-\`, "C-n", "g", "t")
			}
			e.n.waitLua(t, `"acwrite n"`, `return vim.bo.buftype .. " " .. vim.api.nvim_get_mode().mode`)
			if c.decide != "" {
				e.n.typeText(t, c.decide)
				e.n.keys(t, "Enter")
			}
			switch c.decide {
			case ":w":
				wantTexts(t, toolOf(t, await(t, ch)), "FILE_SAVED", "new\n")
				e.c.tool(t, "close_tab", map[string]any{"tab_name": tabA})
			case ":q":
				wantTexts(t, toolOf(t, await(t, ch)), "DIFF_REJECTED", tabA)
			default:
				e.c.tool(t, "close_tab", map[string]any{"tab_name": tabA})
			}
			e.waitDiffs(t)
			e.waitWhere(t, strings.Replace(c.from, "terminal t", "terminal nt", 1))
			e.n.typeText(t, ":let g:typed = 1")
			e.n.keys(t, "Enter")
			e.n.waitLua(t, "1", `return vim.g.typed`)
			if s := e.n.str(t, `return table.concat(vim.api.nvim_buf_get_lines(require("claude-ide-bridge.terminal").buf(), 0, -1, false), "\n")`); strings.Contains(s, "typed") {
				t.Fatalf("Claude's terminal got the command: %q", s)
			}
		})
	}
}

// Issue 39 item 3: "A diff opening while the user types takes the keys as Normal-mode commands in
// the proposal". A diff that comes while the user types in Insert mode opens without taking the
// focus: the keys typed next go on into their file, the proposal stays as Claude sent it, and a
// message says how to answer. Real keys (tmux).
func TestDiffWhileInInsertMode(t *testing.T) {
	e := newEnvTmux(t, map[string]any{"model_tools": false, "permission_mode": false})
	e.n.lua(t, keepNotes)
	path := e.file(t, "a.txt", "old\n")
	e.edit(t, path)
	e.n.keys(t, "i")
	e.waitWhere(t, "file i")
	ch := e.openDiff(t, path, "new\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	e.n.typeText(t, "jk")
	e.n.waitLua(t, `[["jkold"], "i", ""]`, `return { vim.api.nvim_buf_get_lines(0, 0, -1, false), vim.api.nvim_get_mode().mode, vim.bo.buftype }`)
	e.n.waitLua(t, `["new"]`, `return vim.api.nvim_buf_get_lines(vim.fn.bufnr("claude-ide-bridge://proposed/"), 0, -1, false)`)
	if n := e.n.str(t, `return table.concat(_G.NOTES, "\n")`); !strings.Contains(n, ":ClaudeCodeDiffAccept") {
		t.Fatalf("no message says how to answer the diff: %q", n)
	}
	e.n.keys(t, "Escape")
	e.waitWhere(t, "file n")
	e.n.typeText(t, ":ClaudeCodeDiffDeny")
	e.n.keys(t, "Enter")
	wantTexts(t, toolOf(t, await(t, ch)), "DIFF_REJECTED", tabA)
}

// keepNotes collects every message of vim.notify in _G.NOTES.
const keepNotes = `_G.NOTES = {}
	local orig = vim.notify
	vim.notify = function(msg, ...) table.insert(_G.NOTES, msg) return orig(msg, ...) end`
