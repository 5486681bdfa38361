package nvimtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// snacksDir is snacks.nvim unpacked ($SNACKS_DIR), for the snacks explorer and picker tests;
// they are skipped, saying so, without it (it is not in ../shared/peers) and on Neovim before
// 0.9.4, which snacks.nvim does not support.
func snacksDir(t *testing.T, n *nvim) string {
	t.Helper()
	d := os.Getenv("SNACKS_DIR")
	if d == "" {
		t.Skip("SKIPPED: SNACKS_DIR is not set (snacks.nvim unpacked); :ClaudeCodeTreeAdd in snacks is not tested")
	}
	if _, err := os.Stat(filepath.Join(d, "lua", "snacks", "init.lua")); err != nil {
		t.Skipf("SKIPPED: no snacks.nvim at %s: %v", d, err)
	}
	if string(n.lua(t, `return vim.fn.has("nvim-0.9.4") == 1`)) != "true" {
		t.Skip("SKIPPED: snacks.nvim needs Neovim 0.9.4 or newer")
	}
	return d
}

func (e *env) mentions(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for len(out) < n {
		p := e.c.waitNote(t, "at_mentioned", func(json.RawMessage) bool { return true })
		var m struct{ FilePath string }
		json.Unmarshal(p, &m)
		out = append(out, filepath.Base(m.FilePath))
	}
	sort.Strings(out)
	return out
}

// Issue 28 item 6: ":ClaudeCodeTreeAdd for the snacks explorer and picker (LazyVim's defaults)",
// with the real snacks.nvim: the file under the cursor in Snacks.explorer(), and the
// Tab-selected files of a files picker, reach Claude as @-mentions.
func TestTreeAddSnacks(t *testing.T) {
	e := newEnv(t, nil, true)
	dir := snacksDir(t, e.n)
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		e.file(t, f, f+"\n")
	}
	e.n.lua(t, `vim.opt.rtp:prepend(...)
		require("snacks").setup({ explorer = { enabled = true }, picker = { enabled = true } })`, dir)

	e.n.lua(t, `Snacks.explorer()`)
	e.n.waitLua(t, `true`, `local p = Snacks.picker.get({ source = "explorer" })[1]
		if not p then return false end
		for _, it in ipairs(p:items()) do if it.file and it.file:find("b%.txt$") then return vim.bo.filetype == "snacks_picker_list" end end
		return false`)
	// The cursor on b.txt, as the user would move it.
	e.n.lua(t, `local p = Snacks.picker.get({ source = "explorer" })[1]
		for i, it in ipairs(p:items()) do if it.file and it.file:find("b%.txt$") then p.list:view(i) end end`)
	e.n.waitLua(t, `"b.txt"`, `local p = Snacks.picker.get({ source = "explorer" })[1]
		local it = p:current(); return it and vim.fn.fnamemodify(it.file, ":t") or vim.NIL`)
	e.n.ex(t, "ClaudeCodeTreeAdd")
	if got := e.mentions(t, 1); strings.Join(got, ",") != "b.txt" {
		t.Fatalf("explorer: mentioned %v, want b.txt", got)
	}
	e.n.lua(t, `Snacks.picker.get({ source = "explorer" })[1]:close()`)

	// A files picker: Tab on a.txt and c.txt, from its list window.
	e.n.lua(t, `Snacks.picker.files({ cwd = ..., focus = "list" })`, e.proj)
	e.n.waitLua(t, `3`, `local p = Snacks.picker.get({ source = "files" })[1]
		return p and vim.bo.filetype == "snacks_picker_list" and #p:items() or 0`)
	e.n.lua(t, `local p = Snacks.picker.get({ source = "files" })[1]
		for i, it in ipairs(p:items()) do
			if it.file:find("[ac]%.txt$") then p.list:select(it) end
		end`)
	e.n.ex(t, "ClaudeCodeTreeAdd")
	if got := e.mentions(t, 2); strings.Join(got, ",") != "a.txt,c.txt" {
		t.Fatalf("picker: mentioned %v, want a.txt and c.txt", got)
	}
}
