package nvimtest

import (
	"strings"
	"testing"
)

// Issue 28 item 4: "The tabline shows the terminal and diff tabs as
// `t///t/n/g//2/t/n/n/.c/i/31735.mcp.json'`; the terminal's statusline is the whole `term://...`
// command." Drawn by Neovim (nvim_eval_statusline): the terminal's statusline and its tab read
// "Claude Code", the diff's tab "Diff a.txt"; the terminal has filetype claudecode, and renaming
// it leaves no term:// buffer behind.
func TestLabels(t *testing.T) {
	e := newEnv(t, map[string]any{"terminal_cmd": []string{"cat"}, "model_tools": false, "permission_mode": false}, true)
	path := e.file(t, "a.txt", "old\n")
	e.edit(t, path)
	e.n.ex(t, "ClaudeCode")
	e.n.waitLua(t, `"terminal"`, `return vim.bo.buftype`)
	if ft := e.n.str(t, `return vim.bo.filetype`); ft != "claudecode" {
		t.Errorf("terminal filetype %q, want claudecode", ft)
	}
	status := e.n.str(t, `return vim.api.nvim_eval_statusline(vim.o.statusline ~= "" and vim.o.statusline or "%<%f %h%m%r%=%-14.(%l,%c%V%) %P", { winid = 0, maxwidth = 200 }).str`)
	if !strings.HasPrefix(status, "Claude Code ") || strings.Contains(status, "term:") {
		t.Errorf("terminal statusline %q", status)
	}
	var names []string
	e.n.luaInto(t, &names, `local out = {}
		for _, b in ipairs(vim.api.nvim_list_bufs()) do out[#out + 1] = vim.api.nvim_buf_get_name(b) end
		return out`)
	for _, nm := range names {
		if strings.HasPrefix(nm, "term:") {
			t.Errorf("a term:// buffer is left: %q", names)
		}
	}
	ch := e.openDiff(t, path, "new\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	tabline := e.n.str(t, `return vim.api.nvim_eval_statusline(vim.o.tabline, { use_tabline = true, maxwidth = 200 }).str`)
	if !strings.Contains(tabline, "Claude Code") || !strings.Contains(tabline, "Diff a.txt") || strings.Contains(tabline, "//") {
		t.Errorf("tabline %q, want tabs named Claude Code and Diff a.txt", tabline)
	}
	e.n.ex(t, "ClaudeCodeDiffDeny")
	wantTexts(t, toolOf(t, await(t, ch)), "DIFF_REJECTED", tabA)
	// A URL-like name (:checkhealth's health://) is not cut to h//.
	e.n.ex(t, "tabnew")
	e.n.lua(t, `vim.api.nvim_buf_set_name(0, "health://")`)
	if tl := e.n.str(t, `return vim.api.nvim_eval_statusline(vim.o.tabline, { use_tabline = true, maxwidth = 200 }).str`); !strings.Contains(tl, "health://") {
		t.Errorf("tabline %q, want health:// whole", tl)
	}

	// A 'tabline' of the user's is kept.
	e.n.lua(t, `vim.o.tabline = "mine"; require("claude-ide-bridge").setup({ bin = ..., auto_start = false })`, bridgeBin)
	if tl := e.n.str(t, `return vim.o.tabline`); tl != "mine" {
		t.Errorf("setup() replaced the user's 'tabline' with %q", tl)
	}
}
