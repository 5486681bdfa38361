package nvimtest

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

const tabA = "✻ [Claude Code] a.txt (aa7495) ⧉"

func (e *env) openDiff(t *testing.T, path, contents, tab string) chan message {
	t.Helper()
	return e.c.startTool(t, "openDiff", map[string]any{
		"old_file_path": path, "new_file_path": path, "new_file_contents": contents, "tab_name": tab,
	})
}

// pendingDiff starts Neovim with a client and a.txt ("old"), and has Claude propose contents
// for it: the diff is pending.
func pendingDiff(t *testing.T, contents string) (*env, string, chan message) {
	t.Helper()
	e := newEnv(t, nil, true)
	path := e.file(t, "a.txt", "old\n")
	ch := e.openDiff(t, path, contents, tabA)
	e.waitDiffs(t, tabA+"=pending")
	return e, path, ch
}

// waitDiffs waits until the plugin shows exactly these diffs ("tab=state").
func (e *env) waitDiffs(t *testing.T, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	w, _ := json.Marshal(want)
	e.n.waitLua(t, string(w), `
		local out = {}
		for _, d in ipairs(require('claude-ide-bridge.diff').list()) do out[#out + 1] = d.tab_name .. '=' .. d.state end
		return out`)
}

func (e *env) tabpages(t *testing.T) int {
	t.Helper()
	var n int
	e.n.luaInto(t, &n, `return #vim.api.nvim_list_tabpages()`)
	return n
}

func (e *env) lines(t *testing.T, code string) []string {
	t.Helper()
	var l []string
	e.n.luaInto(t, &l, code)
	return l
}

func wantTexts(t *testing.T, r toolResult, want ...string) {
	t.Helper()
	if r.IsError || !reflect.DeepEqual(r.texts(), want) {
		t.Fatalf("openDiff result %q (isError %v), want %q", r.texts(), r.IsError, want)
	}
}

// Editor protocol: "`diffAccepted` ... The bridge answers Claude `FILE_SAVED`
// + contents; **the editor must not write the file** (Claude writes it). The
// diff view stays open until `closeDiff`."
func TestDiffAcceptWithWrite(t *testing.T) {
	e := newEnv(t, nil, true)
	path := e.file(t, "a.txt", "old\n")
	e.edit(t, path)
	ch := e.openDiff(t, path, "new\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	// The proposal is the current window, in diff mode beside the original.
	if got := e.lines(t, `return vim.api.nvim_buf_get_lines(0, 0, -1, false)`); !reflect.DeepEqual(got, []string{"new"}) {
		t.Fatalf("proposal buffer %q", got)
	}
	var diffWins int
	e.n.luaInto(t, &diffWins, `local n = 0
		for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do if vim.wo[w].diff then n = n + 1 end end
		return n`)
	if diffWins != 2 {
		t.Fatalf("%d diff windows in the diff tab, want 2", diffWins)
	}
	e.n.ex(t, "write")
	wantTexts(t, toolOf(t, await(t, ch)), "FILE_SAVED", "new\n")
	if got := harness.FileText(path); got != "old\n" {
		t.Fatalf("the plugin wrote the file: %q", got)
	}
	e.waitDiffs(t, tabA+"=accepted")
	e.c.tool(t, "close_tab", map[string]any{"tab_name": tabA})
	e.waitDiffs(t)
	if n := e.tabpages(t); n != 1 {
		t.Fatalf("%d tab pages after close_tab, want 1", n)
	}
}

// Spec: openDiff returns FILE_SAVED with "<final file contents>" — "accepted
// with those contents (user edits included)".
func TestDiffEditThenAccept(t *testing.T) {
	e, path, ch := pendingDiff(t, "new\n")
	e.n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, -1, false, {"new, edited", "more"})`)
	e.n.ex(t, "ClaudeCodeDiffAccept")
	wantTexts(t, toolOf(t, await(t, ch)), "FILE_SAVED", "new, edited\nmore\n")
	if got := harness.FileText(path); got != "old\n" {
		t.Fatalf("the plugin wrote the file: %q", got)
	}
}

// An edited proposal goes out whole (files.text, then vim.json.encode like
// every message): JSON's escapes, each invalid byte as U+FFFD, a NUL as NUL,
// no final newline without 'eol'.
func TestDiffEditedAcceptSendsTextExactly(t *testing.T) {
	e, _, ch := pendingDiff(t, "new\n")
	e.n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, -1, false, {'say "hi" C:\\dir\\ </x>', "ctl \1\31\127\r", "bad \255 \195\169", "a\0b"})
		vim.bo.eol = false`)
	e.n.ex(t, "write")
	wantTexts(t, toolOf(t, await(t, ch)), "FILE_SAVED", "say \"hi\" C:\\dir\\ </x>\nctl \x01\x1f\x7f\r\nbad \ufffd \u00e9\na\x00b")
}

// Issue: ":q on it or :ClaudeCodeDiffDeny rejects"; spec: DIFF_REJECTED with
// the tab name.
func TestDiffReject(t *testing.T) {
	for _, how := range []string{"quit", "ClaudeCodeDiffDeny"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t, nil, true)
			path := e.file(t, "a.txt", "old\n")
			e.edit(t, path)
			ch := e.openDiff(t, path, "new\n", tabA)
			e.waitDiffs(t, tabA+"=pending")
			e.n.ex(t, how)
			wantTexts(t, toolOf(t, await(t, ch)), "DIFF_REJECTED", tabA)
			e.waitDiffs(t)
			if n := e.tabpages(t); n != 1 {
				t.Fatalf("%d tab pages after the reject, want 1", n)
			}
			if got := harness.FileText(path); got != "old\n" {
				t.Fatalf("file changed: %q", got)
			}
		})
	}
}

// Spec: "A new call with the tab_name of an open diff replaces that diff."
func TestDiffReplace(t *testing.T) {
	e, path, first := pendingDiff(t, "one\n")
	second := e.openDiff(t, path, "two\n", tabA)
	r := toolOf(t, await(t, first))
	if len(r.texts()) > 0 && r.texts()[0] == "FILE_SAVED" {
		t.Fatalf("the replaced diff was accepted: %q", r.texts())
	}
	e.n.waitLua(t, `["two"]`, `
		local d = require('claude-ide-bridge.diff').list()
		if #d ~= 1 then return #d end
		return vim.api.nvim_buf_get_lines(0, 0, -1, false)`)
	if n := e.tabpages(t); n != 2 {
		t.Fatalf("%d tab pages, want the user's and one diff", n)
	}
	e.n.ex(t, "write")
	wantTexts(t, toolOf(t, await(t, second)), "FILE_SAVED", "two\n")
}

// Spec (close_tab): "The plugin closes only the diff that openDiff opened with
// this exact tab_name." A pending diff closed so is settled, never as accepted.
func TestDiffCloseTab(t *testing.T) {
	e := newEnv(t, nil, true)
	a := e.file(t, "a.txt", "a\n")
	b := e.file(t, "b.txt", "b\n")
	tabB := strings.Replace(tabA, "a.txt", "b.txt", 1)
	chA := e.openDiff(t, a, "A\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	chB := e.openDiff(t, b, "B\n", tabB)
	e.waitDiffs(t, tabA+"=pending", tabB+"=pending")
	e.c.tool(t, "close_tab", map[string]any{"tab_name": tabA})
	e.waitDiffs(t, tabB+"=pending")
	r := toolOf(t, await(t, chA))
	if len(r.texts()) > 0 && r.texts()[0] == "FILE_SAVED" {
		t.Fatalf("close_tab accepted the diff: %q", r.texts())
	}
	// A name that matches no diff closes nothing.
	e.c.tool(t, "close_tab", map[string]any{"tab_name": "✻ [Claude Code] nope (000000) ⧉"})
	e.waitDiffs(t, tabB+"=pending")
	e.n.ex(t, "ClaudeCodeDiffDeny")
	wantTexts(t, toolOf(t, await(t, chB)), "DIFF_REJECTED", tabB)
}

// Issue: ":ClaudeCodeCloseAllDiffs as the spec says (an accepted diff's text
// goes into the file's buffer as unsaved changes unless the file already
// holds it)"; pending diffs are rejected.
func TestCloseAllDiffs(t *testing.T) {
	e := newEnv(t, nil, true)
	a := e.file(t, "a.txt", "a\n")
	b := e.file(t, "b.txt", "b\n")
	c := e.file(t, "c.txt", "c\n")
	tabB := strings.Replace(tabA, "a.txt", "b.txt", 1)
	tabC := strings.Replace(tabA, "a.txt", "c.txt", 1)

	chA := e.openDiff(t, a, "A\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	e.n.ex(t, "write")
	wantTexts(t, toolOf(t, await(t, chA)), "FILE_SAVED", "A\n")

	chC := e.openDiff(t, c, "C\n", tabC)
	e.waitDiffs(t, tabA+"=accepted", tabC+"=pending")
	e.n.ex(t, "write")
	wantTexts(t, toolOf(t, await(t, chC)), "FILE_SAVED", "C\n")
	// Claude wrote c.txt: the file already holds the accepted text.
	if err := os.WriteFile(c, []byte("C\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	chB := e.openDiff(t, b, "B\n", tabB)
	e.waitDiffs(t, tabA+"=accepted", tabB+"=pending", tabC+"=accepted")

	e.n.ex(t, "ClaudeCodeCloseAllDiffs")
	wantTexts(t, toolOf(t, await(t, chB)), "DIFF_REJECTED", tabB)
	e.waitDiffs(t)
	if n := e.tabpages(t); n != 1 {
		t.Fatalf("%d tab pages, want 1", n)
	}
	var bufA struct {
		Lines    []string `json:"lines"`
		Modified bool     `json:"modified"`
	}
	e.n.luaInto(t, &bufA, `local b = require('claude-ide-bridge.files').find(...)
		return {lines = vim.api.nvim_buf_get_lines(b, 0, -1, false), modified = vim.bo[b].modified}`, a)
	if !reflect.DeepEqual(bufA.Lines, []string{"A"}) || !bufA.Modified {
		t.Fatalf("a.txt buffer %+v, want the accepted text, unsaved", bufA)
	}
	if got := harness.FileText(a); got != "a\n" {
		t.Fatalf("the plugin wrote a.txt: %q", got)
	}
	var cOpen bool
	e.n.luaInto(t, &cOpen, `local b = require('claude-ide-bridge.files').find(...)
		return b ~= nil and vim.bo[b].modified`, c)
	if cOpen {
		t.Fatal("c.txt got unsaved changes though the file already held the accepted text")
	}
}

// Issue: "refuses a diff of a file with unsaved changes with a clear error".
func TestDiffRefusesUnsavedFile(t *testing.T) {
	e := newEnv(t, nil, true)
	path := e.file(t, "a.txt", "old\n")
	e.edit(t, path)
	e.n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, -1, false, {"unsaved"})`)
	m := await(t, e.openDiff(t, path, "new\n", tabA))
	var msg string
	if m.Error != nil {
		msg = m.Error.Message
	} else {
		r := toolOf(t, m)
		if !r.IsError {
			t.Fatalf("openDiff of a modified buffer succeeded: %q", r.texts())
		}
		msg = strings.Join(r.texts(), " ")
	}
	if !strings.Contains(msg, "a.txt has unsaved changes") {
		t.Fatalf("error %q does not name the unsaved file", msg)
	}
	e.waitDiffs(t)
	if n := e.tabpages(t); n != 1 {
		t.Fatalf("%d tab pages, want 1", n)
	}
}

// Issue: "never closes windows it did not open (no sweeping of other &diff
// windows)".
func TestDiffLeavesUserDiffWindows(t *testing.T) {
	e := newEnv(t, nil, true)
	x := e.file(t, "x.txt", "x\n")
	y := e.file(t, "y.txt", "y\n")
	a := e.file(t, "a.txt", "a\n")
	e.edit(t, x)
	e.n.ex(t, "diffthis | vsplit "+y+" | diffthis")
	ch := e.openDiff(t, a, "A\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	e.n.ex(t, "quit")
	wantTexts(t, toolOf(t, await(t, ch)), "DIFF_REJECTED", tabA)
	e.waitDiffs(t)
	var wins []bool
	e.n.luaInto(t, &wins, `local out = {}
		for _, w in ipairs(vim.api.nvim_list_wins()) do out[#out + 1] = vim.wo[w].diff end
		return out`)
	if !reflect.DeepEqual(wins, []bool{true, true}) {
		t.Fatalf("user windows after the diff closed: diff flags %v, want [true true]", wins)
	}
}

// Claude's Write tool proposes a file that does not exist yet.
func TestDiffNewFile(t *testing.T) {
	e := newEnv(t, nil, true)
	path := e.proj + "/new.txt"
	ch := e.openDiff(t, path, "fresh\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	e.n.ex(t, "ClaudeCodeDiffAccept")
	wantTexts(t, toolOf(t, await(t, ch)), "FILE_SAVED", "fresh\n")
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the plugin created the file")
	}
}

// The usual case: the user is typing in the Claude terminal when the diff
// comes. It opens in its tab page without taking the keys (issue 39 item 3:
// they went to the proposal as Normal-mode commands); there, :w accepts it.
func TestDiffWhileInTerminalMode(t *testing.T) {
	e := newEnv(t, map[string]any{"terminal_cmd": []string{"cat"}}, true)
	path := e.file(t, "a.txt", "old\n")
	e.edit(t, path)
	e.n.ex(t, "ClaudeCode")
	e.n.waitLua(t, `"t"`, `return vim.api.nvim_get_mode().mode`)
	ch := e.openDiff(t, path, "new\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	e.n.waitLua(t, `"terminal t"`, `return vim.bo.buftype .. " " .. vim.api.nvim_get_mode().mode`)
	e.n.input(t, `<C-\><C-n>gt`)
	e.n.waitLua(t, `"acwrite"`, `return vim.bo.buftype`)
	e.n.input(t, ":w<CR>")
	wantTexts(t, toolOf(t, await(t, ch)), "FILE_SAVED", "new\n")
}

// An undo right after a diff opens must not empty the proposal: the fill is
// not a change of the user's, so `u` has nothing to undo, and `:w` accepts the
// text Claude proposed (issue 27's finding: `u` emptied the buffer and `:w`
// then accepted an empty file). Both fills: the Lua split and, from 256 KiB,
// Neovim's own reader.
func TestUndoAfterDiffOpensKeepsProposal(t *testing.T) {
	big := strings.Repeat("a distinct line of a big proposal\n", 9000) // > files.READ_AT
	for _, c := range []struct{ name, text string }{{"small", "new\n"}, {"big", big}} {
		t.Run(c.name, func(t *testing.T) {
			e, _, ch := pendingDiff(t, c.text)
			e.n.ex(t, "silent! normal! u")
			var n int
			e.n.luaInto(t, &n, `return #table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n") + 1`)
			if n != len(c.text) {
				t.Fatalf("after u the proposal holds %d bytes, want %d", n, len(c.text))
			}
			e.n.ex(t, "write")
			r := toolOf(t, await(t, ch))
			if got := r.texts(); r.IsError || len(got) != 2 || got[0] != "FILE_SAVED" || got[1] != c.text {
				t.Fatalf("accepted %d texts (isError %v), first %q; want FILE_SAVED with the proposal", len(got), r.IsError, got[0])
			}
		})
	}
}

// Issue 39 item 7: a permission question shown while the diff's tab page is current (its float is
// in that tab page), the user back in the first tab page, then Claude closes the diff (answered in
// Claude's terminal). Neovim 0.7.2 crashed (SIGSEGV) as the plugin closed the diff's windows one
// by one in the other tab page; without a float it left the first tab page's layout a row off
// (the tabline of two tab pages still reserved). Now the tab page goes whole: Neovim lives, one
// tab page, its window from the top row at full height, the question still pending.
func TestDiffClosedFromAnotherTabPage(t *testing.T) {
	e := newEnv(t, map[string]any{"model_tools": false}, true)
	path := e.file(t, "a.txt", "old\n")
	e.edit(t, path)
	first := e.n.str(t, `return tostring(vim.api.nvim_get_current_win())`)
	height := e.n.str(t, `return tostring(vim.api.nvim_win_get_height(0))`)
	ch := e.openDiff(t, path, "new\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	e.hook(t, harness.Bash("session-abcdef", "touch x"))
	e.n.waitLua(t, `1`, `return require("claude-ide-bridge").status().permissions`)
	e.n.waitLua(t, `true`, `for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
			if vim.api.nvim_win_get_config(w).relative ~= "" then return true end
		end
		return false`)
	e.n.ex(t, "tabfirst")
	e.c.tool(t, "close_tab", map[string]any{"tab_name": tabA})
	await(t, ch)
	e.waitDiffs(t)
	if n := e.tabpages(t); n != 1 {
		t.Fatalf("%d tab pages after close_tab, want 1", n)
	}
	if got := e.n.str(t, `local w = vim.fn.win_getid()
		return tostring(w) .. " " .. vim.fn.win_screenpos(w)[1] .. " " .. vim.api.nvim_win_get_height(w)`); got != first+" 1 "+height {
		t.Errorf("the first tab page's window (id, row, height) %q, want %q", got, first+" 1 "+height)
	}
	e.n.waitLua(t, `1`, `return require("claude-ide-bridge").status().permissions`)
}

// Editor protocol: "`diffText` ... the proposal's text as its diff view holds it now, the user's
// edits included, or `{"text": null}` when no view of that name is open" (the text an agent
// served beside Claude writes when the user answers in its own terminal: docs/gemini.md).
func TestDiffTextHasUserEdits(t *testing.T) {
	e := newEnv(t, nil, true)
	path := e.file(t, "a.txt", "old\n")
	e.openDiff(t, path, "new\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	e.n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, -1, false, {"new", "edited in the view"})`)
	ask := `local out
		require('claude-ide-bridge.handlers').diffText({tabName = ...}, function(r)
			out = r.text == vim.NIL and "<null>" or r.text
		end)
		return out`
	if got := e.n.str(t, ask, tabA); got != "new\nedited in the view\n" {
		t.Fatalf("diffText %q", got)
	}
	if got := e.n.str(t, ask, "no such tab"); got != "<null>" {
		t.Fatalf("diffText of no view %q", got)
	}
}
