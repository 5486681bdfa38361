package nvimtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Issue 28 item 8: "Several Claude sessions from one Neovim: one per tab page (or named), each
// with its own terminal and its own diffs; status() lists them." Two tab pages, each with its
// own claude (a stand-in that writes its pid; the Claude-side client reports that pid, as the
// CLI's ide_connected does). The second session's diff opens in the second tab page even when
// the user is in the first, and status() lists both with their diffs.
func TestSessionsPerTab(t *testing.T) {
	root := t.TempDir()
	e := newEnv(t, map[string]any{"model_tools": false, "permission_mode": false,
		"terminal":     map[string]any{"sessions": "tab"},
		"diff":         map[string]any{"open_in_new_tab": false},
		"terminal_cmd": []string{"sh", "-c", `echo $$ > "` + root + `/pid.$(date +%s%N)"; exec cat`}}, false)
	path := e.file(t, "a.txt", "old\n")
	e.edit(t, path)
	// Normal mode each time before going on: nvim_input is typed later than an RPC command runs.
	toNormal := func() {
		e.n.input(t, `<C-\><C-n>`)
		e.n.waitLua(t, `"n"`, `return vim.api.nvim_get_mode().mode:sub(1, 1)`)
	}
	e.n.ex(t, "ClaudeCode")
	e.n.waitLua(t, `"t"`, `return vim.api.nvim_get_mode().mode`)
	toNormal()
	e.n.ex(t, "tabnew")
	e.n.ex(t, "ClaudeCodeSession review")
	e.n.waitLua(t, `"t"`, `return vim.api.nvim_get_mode().mode`)
	toNormal()
	var pids []int
	waitFor(t, "two claude pids", func() bool {
		names, _ := filepath.Glob(filepath.Join(root, "pid.*"))
		if len(names) != 2 {
			return false
		}
		pids = pids[:0]
		for _, n := range names { // sorted by start time: tab 1's first
			b, _ := os.ReadFile(n)
			p, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				return false
			}
			pids = append(pids, p)
		}
		return true
	})
	var names []string
	e.n.luaInto(t, &names, `local out = {}
		for _, b in ipairs(vim.api.nvim_list_bufs()) do
			if vim.b[b].claude_ide_bridge_terminal then out[#out + 1] = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ":t") end
		end
		table.sort(out); return out`)
	if strings.Join(names, ",") != "Claude Code (review),Claude Code (tab 1)" {
		t.Fatalf("terminals %q", names)
	}
	c2 := dialClaudeAs(t, e.cfg, pids[1])
	c1 := dialClaudeAs(t, e.cfg, pids[0])
	e.n.waitLua(t, `2`, `return require("claude-ide-bridge").state().clients`)
	e.n.ex(t, "tabfirst")
	toNormal() // not typing to Claude: the diff takes the focus (issue 39 item 3)
	e.c = c2
	ch := e.openDiff(t, path, "from review\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	if tab := e.n.str(t, `return tostring(vim.api.nvim_tabpage_get_number(vim.api.nvim_get_current_tabpage()))`); tab != "2" {
		t.Fatalf("the review session's diff opened in tab page %s, want 2", tab)
	}
	var st struct {
		Sessions []struct {
			Name    string `json:"name"`
			Tab     int    `json:"tab"`
			Running bool   `json:"running"`
			Diffs   int    `json:"diffs"`
		} `json:"sessions"`
	}
	e.n.luaInto(t, &st, `return require("claude-ide-bridge").status()`)
	got, _ := json.Marshal(st.Sessions)
	if string(got) != `[{"name":"review","tab":2,"running":true,"diffs":1},{"name":"tab 1","tab":1,"running":true,"diffs":0}]` {
		t.Fatalf("status().sessions %s", got)
	}
	e.n.ex(t, "write")
	wantTexts(t, toolOf(t, await(t, ch)), "FILE_SAVED", "from review\n")
	_ = c1
}

// :ClaudeCode waits for the bridge's claudeCommand answer; a :tabnew typed before it arrives
// (a user typing fast) must not take the terminal: it opens in the tab page the command was
// typed in, as that tab's session. The answer is held here until :tabnew has run.
func TestClaudeCodeOpensInTheTabItWasTypedIn(t *testing.T) {
	e := newEnv(t, map[string]any{"model_tools": false, "permission_mode": false,
		"terminal": map[string]any{"sessions": "tab"}, "terminal_cmd": []string{"sh", "-c", "exec cat"}}, false)
	e.n.lua(t, `local state = require("claude-ide-bridge.state")
		local request = state.request
		_G.held = {}
		state.request = function(method, params, cb)
			if method ~= "claudeCommand" then return request(method, params, cb) end
			request(method, params, function(...)
				local answer = { ... }
				table.insert(_G.held, function() cb(unpack(answer, 1, 2)) end)
			end)
		end`)
	typedIn := e.n.str(t, `return tostring(vim.api.nvim_get_current_tabpage())`)
	e.n.ex(t, "ClaudeCode")
	e.n.waitLua(t, `1`, `return #_G.held`)
	e.n.ex(t, "tabnew")
	e.n.lua(t, `_G.held[1]()`)
	e.n.waitLua(t, `"t"`, `return vim.api.nvim_get_mode().mode`)
	var got struct {
		Current string   `json:"current"`
		Tabs    []string `json:"tabs"`
		Keys    []string `json:"keys"`
	}
	e.n.luaInto(t, &got, `local out = { current = tostring(vim.api.nvim_get_current_tabpage()), tabs = {}, keys = {} }
		for _, tab in ipairs(vim.api.nvim_list_tabpages()) do
			for _, win in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
				if vim.b[vim.api.nvim_win_get_buf(win)].claude_ide_bridge_terminal then out.tabs[#out.tabs + 1] = tostring(tab) end
			end
		end
		for _, s in ipairs(require("claude-ide-bridge.terminal").sessions()) do out.keys[#out.keys + 1] = s.key end
		return out`)
	if strings.Join(got.Tabs, ",") != typedIn || got.Current != typedIn {
		t.Errorf("the terminal is shown in tab pages %v (tab page %s current), want only %s, where :ClaudeCode was typed", got.Tabs, got.Current, typedIn)
	}
	if strings.Join(got.Keys, ",") != "tab:"+typedIn {
		t.Errorf("sessions %v, want the one of tab page %s", got.Keys, typedIn)
	}
}
