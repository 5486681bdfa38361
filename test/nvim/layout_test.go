package nvimtest

import (
	"fmt"
	"strings"
	"testing"
)

// diffView describes the diff tab page: its window layout ("row" side by side, "col" one above
// the other, "leaf" one window), how many windows are in diff mode, the removed lines shown as
// virtual lines, and how many tab pages there are.
type diffView struct {
	Layout   string   `json:"layout"`
	DiffWins int      `json:"diffWins"`
	Virt     []string `json:"virt"`
	Tabs     int      `json:"tabs"`
}

func (e *env) diffView(t *testing.T) diffView {
	t.Helper()
	var v diffView
	e.n.luaInto(t, &v, `local d = require("claude-ide-bridge.state").diffs
		local x = next(d) and d[next(d)]
		local tab = x.tab
		local wins = {}
		for _, w in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
			local b = vim.api.nvim_win_get_buf(w)
			if b == x.prop_buf or b == x.orig_buf then wins[#wins + 1] = w end
		end
		local n = 0
		for _, w in ipairs(wins) do if vim.wo[w].diff then n = n + 1 end end
		-- The layout of the node that holds the diff's windows.
		local function find(node)
			if node[1] == "leaf" then return nil end
			local has = 0
			for _, c in ipairs(node[2]) do
				if c[1] == "leaf" and vim.tbl_contains(wins, c[2]) then has = has + 1 end
			end
			if has == #wins and has > 1 then return node[1] end
			for _, c in ipairs(node[2]) do local r = find(c); if r then return r end end
		end
		local layout = #wins == 1 and "leaf" or (find(vim.fn.winlayout(vim.api.nvim_tabpage_get_number(tab))) or "?")
		local virt = {}
		local ns = vim.api.nvim_create_namespace("claude-ide-bridge-unified")
		for _, m in ipairs(vim.api.nvim_buf_get_extmarks(x.prop_buf, ns, 0, -1, { details = true })) do
			for _, vl in ipairs(m[4].virt_lines or {}) do virt[#virt + 1] = vl[1][1] end
		end
		return { layout = layout, diffWins = n, virt = virt, tabs = #vim.api.nvim_list_tabpages() }`)
	return v
}

// after checks that the diff left nothing: one tab page, no buffer of ours shown or loaded, and
// the user's window shows a.txt again.
func (e *env) afterDiff(t *testing.T) {
	t.Helper()
	e.waitDiffs(t)
	var r struct {
		Tabs    int      `json:"tabs"`
		Shown   []string `json:"shown"`
		Ours    int      `json:"ours"`
		DiffWin int      `json:"diffWin"`
	}
	e.n.luaInto(t, &r, `local shown, ours, dw = {}, 0, 0
		for _, w in ipairs(vim.api.nvim_list_wins()) do
			shown[#shown + 1] = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)), ":t")
			if vim.wo[w].diff then dw = dw + 1 end
		end
		for _, b in ipairs(vim.api.nvim_list_bufs()) do
			if vim.api.nvim_buf_get_name(b):find("^claude%-ide%-bridge://") then ours = ours + 1 end
		end
		return { tabs = #vim.api.nvim_list_tabpages(), shown = shown, ours = ours, diffWin = dw }`)
	if r.Tabs != 1 || r.Ours != 0 || r.DiffWin != 0 || !strings.Contains(strings.Join(r.Shown, ","), "a.txt") {
		t.Fatalf("after the diff: %+v", r)
	}
}

// Issue 28 item 5: "Diff layouts: vertical (today), horizontal and a unified view in one buffer;
// new tab (today) or current tab ... Accept and reject work the same in each."
func TestDiffLayouts(t *testing.T) {
	want := map[string]string{"vertical": "row", "horizontal": "col", "unified": "leaf"}
	for _, layout := range []string{"vertical", "horizontal", "unified"} {
		for _, newTab := range []bool{true, false} {
			for _, decide := range []string{"accept", "reject"} {
				t.Run(fmt.Sprintf("%s/newtab=%v/%s", layout, newTab, decide), func(t *testing.T) {
					t.Parallel()
					e := newEnv(t, map[string]any{"diff": map[string]any{"layout": layout, "open_in_new_tab": newTab}}, true)
					path := e.file(t, "a.txt", "one\ntwo\nthree\n")
					e.edit(t, path)
					ch := e.openDiff(t, path, "one\nTWO\nthree\nfour\n", tabA)
					e.waitDiffs(t, tabA+"=pending")
					v := e.diffView(t)
					tabs := 1
					if newTab {
						tabs = 2
					}
					if v.Layout != want[layout] || v.Tabs != tabs {
						t.Fatalf("view %+v, want layout %s in %d tab page(s)", v, want[layout], tabs)
					}
					if layout == "unified" {
						if v.DiffWins != 0 || strings.Join(v.Virt, "|") != "- two" {
							t.Fatalf("unified view %+v, want no diff windows and the removed line shown", v)
						}
					} else if v.DiffWins != 2 {
						t.Fatalf("%d windows in diff mode, want 2", v.DiffWins)
					}
					if got := e.n.str(t, `return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "|")`); got != "one|TWO|three|four" {
						t.Fatalf("the current window shows %q, want the proposal", got)
					}
					// The proposal's statusline says what it is and what to do.
					if sl := e.n.str(t, `return vim.api.nvim_eval_statusline(vim.wo.statusline, { winid = 0, maxwidth = 120 }).str`); !strings.Contains(sl, "a.txt (Claude's proposal)") || !strings.Contains(sl, ":w accepts") {
						t.Fatalf("proposal statusline %q", sl)
					}
					if decide == "accept" {
						e.n.ex(t, "write")
						wantTexts(t, toolOf(t, await(t, ch)), "FILE_SAVED", "one\nTWO\nthree\nfour\n")
						e.c.tool(t, "close_tab", map[string]any{"tab_name": tabA})
					} else {
						e.n.ex(t, "quit")
						wantTexts(t, toolOf(t, await(t, ch)), "DIFF_REJECTED", tabA)
					}
					e.afterDiff(t)
				})
			}
		}
	}
}

// Issue 28 item 5: "an option to keep focus in Claude's terminal". The diff opens beside the file,
// the user goes on typing to Claude, and accepts with :ClaudeCodeDiffAccept.
func TestDiffKeepTerminalFocus(t *testing.T) {
	e := newEnv(t, map[string]any{"terminal_cmd": []string{"cat"}, "model_tools": false, "permission_mode": false,
		"diff": map[string]any{"open_in_new_tab": false, "keep_terminal_focus": true}}, true)
	path := e.file(t, "a.txt", "old\n")
	e.edit(t, path)
	e.n.ex(t, "ClaudeCode")
	e.waitWhere(t, "terminal t")
	ch := e.openDiff(t, path, "new\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	e.waitWhere(t, "terminal t")
	if v := e.diffView(t); v.Layout != "row" || v.Tabs != 1 {
		t.Fatalf("view %+v", v)
	}
	e.n.ex(t, "ClaudeCodeDiffAccept")
	wantTexts(t, toolOf(t, await(t, ch)), "FILE_SAVED", "new\n")
	e.c.tool(t, "close_tab", map[string]any{"tab_name": tabA})
	e.afterDiff(t)
	e.waitWhere(t, "terminal t")
}

// Issue 39 item 3: keep_terminal_focus = true means a diff never takes the focus, also from Normal
// mode in the user's file (it used to move them into Claude's terminal, in terminal mode).
func TestDiffKeepTerminalFocusFromFile(t *testing.T) {
	e := newEnv(t, map[string]any{"terminal_cmd": []string{"cat"}, "model_tools": false, "permission_mode": false,
		"diff": map[string]any{"keep_terminal_focus": true}}, true)
	path := e.file(t, "a.txt", "old\n")
	e.edit(t, path)
	e.n.ex(t, "ClaudeCode")
	e.waitWhere(t, "terminal t")
	e.n.input(t, `<C-\><C-n><C-w>p`)
	e.waitWhere(t, "file n")
	ch := e.openDiff(t, path, "new\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	e.waitWhere(t, "file n")
	e.n.ex(t, "ClaudeCodeDiffDeny")
	wantTexts(t, toolOf(t, await(t, ch)), "DIFF_REJECTED", tabA)
	e.waitDiffs(t)
	e.waitWhere(t, "file n")
}
