package nvimtest

import (
	"testing"
)

// where is the current window's buffer kind and the mode: "terminal t", "file n".
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

// Issue 28 item 3: "After a diff closes, focus lands in Claude's window in Normal mode: the next
// prompt needs `i`". After the diff closes (accepted then closed by Claude, or rejected), focus
// is back where the user was when it opened, in the mode they were in: typing to Claude in its
// terminal, or in Normal mode in the file.
func TestFocusAfterDiff(t *testing.T) {
	cases := []struct {
		name, from string
		decide     func(e *env, t *testing.T, ch chan message)
	}{
		{"terminal-accept", "terminal t", func(e *env, t *testing.T, ch chan message) {
			e.n.ex(t, "write")
			wantTexts(t, toolOf(t, await(t, ch)), "FILE_SAVED", "new\n")
			e.c.tool(t, "close_tab", map[string]any{"tab_name": tabA})
		}},
		{"terminal-reject", "terminal t", func(e *env, t *testing.T, ch chan message) {
			e.n.ex(t, "quit")
			wantTexts(t, toolOf(t, await(t, ch)), "DIFF_REJECTED", tabA)
		}},
		{"file-reject", "file n", func(e *env, t *testing.T, ch chan message) {
			e.n.ex(t, "ClaudeCodeDiffDeny")
			wantTexts(t, toolOf(t, await(t, ch)), "DIFF_REJECTED", tabA)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, map[string]any{"terminal_cmd": []string{"cat"}, "model_tools": false, "permission_mode": false}, true)
			path := e.file(t, "a.txt", "old\n")
			e.edit(t, path)
			e.n.ex(t, "ClaudeCode")
			e.waitWhere(t, "terminal t")
			if c.from == "file n" {
				e.n.input(t, `<C-\><C-n><C-w>p`)
				e.waitWhere(t, "file n")
			}
			ch := e.openDiff(t, path, "new\n", tabA)
			e.waitDiffs(t, tabA+"=pending")
			c.decide(e, t, ch)
			e.waitDiffs(t)
			e.waitWhere(t, c.from)
		})
	}
}
