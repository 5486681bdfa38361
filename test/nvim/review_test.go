package nvimtest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// Issue 26 item 2: :ClaudeCodeReview shows each file a turn changed, diffed against its text at
// the turn's start; reverting one hunk (do, :w) puts that hunk back on disk and in the buffer,
// and the next turn does not count the revert as Claude's. The Claude side is the CLI's calls in
// auto mode (facts: closeAllDiffTabs at each prompt, getDiagnostics {uri} right before it writes
// an Edit) over a real WebSocket; the CLI writes the file itself.
func TestClaudeCodeReviewRevertHunk(t *testing.T) {
	e := newEnv(t, nil, true)
	before := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"
	a := e.file(t, "a.txt", before)
	time.Sleep(100 * time.Millisecond) // not an assertion: the file exists before the prompt, as a user's would
	e.c.tool(t, "closeAllDiffTabs", map[string]any{})
	e.c.tool(t, "getDiagnostics", map[string]any{"uri": "file://" + a})
	e.file(t, "a.txt", "one\nTWO\nthree\nfour\nfive\nsix\nSEVEN\neight\n")
	e.c.tool(t, "closeAllDiffTabs", map[string]any{}) // the next prompt: turn 1 ends, turn 2 runs
	// The bridge tells the plugin the turn's summary.
	e.n.waitLua(t, `1`, `local t = require("claude-ide-bridge.state").claude.turn; return t and t.files or 0`)

	e.n.ex(t, "ClaudeCodeReview 1")
	e.n.waitLua(t, `2`, `return vim.fn.tabpagenr("$")`)
	var view struct {
		Wins   int      `json:"wins"`
		Diff   []bool   `json:"diff"`
		Before []string `json:"before"`
		File   string   `json:"file"`
	}
	e.n.luaInto(t, &view, `local ws = vim.api.nvim_tabpage_list_wins(0)
		local out = { wins = #ws, diff = {} }
		for _, w in ipairs(ws) do out.diff[#out.diff + 1] = vim.wo[w].diff end
		out.before = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(ws[1]), 0, -1, false)
		out.file = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(ws[2]))
		return out`)
	if view.Wins != 2 || !view.Diff[0] || !view.Diff[1] || strings.Join(view.Before, "\n")+"\n" != before || view.File != a {
		t.Fatalf("review tab %+v", view)
	}
	// In the file's window (current): line 2's hunk back from the left, then :w.
	e.n.lua(t, `vim.api.nvim_win_set_cursor(0, { 2, 0 })`)
	e.n.ex(t, "diffget")
	e.n.ex(t, "write")
	want := "one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\neight\n"
	waitFor(t, "the hunk on disk", func() bool { return harness.FileText(a) == want })
	if got := e.n.str(t, `return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")`); got+"\n" != want {
		t.Errorf("buffer %q", got)
	}
	time.Sleep(300 * time.Millisecond) // not an assertion: lets the watch see the write
	var r struct {
		Report struct {
			Turn  int `json:"turn"`
			Files []struct {
				Path string `json:"path"`
			} `json:"files"`
		} `json:"report"`
	}
	raw := e.n.lua(t, `local done, res
		require("claude-ide-bridge.state").request("review", { turn = 2 }, function(err, a) res, done = err and { err = err } or a, true end)
		vim.wait(5000, function() return done end, 10)
		return vim.json.encode(res)`)
	var s string
	json.Unmarshal(raw, &s)
	if err := json.Unmarshal([]byte(s), &r); err != nil || r.Report.Turn != 2 || len(r.Report.Files) != 0 {
		t.Errorf("turn 2 after the revert: %s", s)
	}
	// :ClaudeCodeReviewRevert puts the rest back too, through the buffer, says so and closes the
	// review tab (issue 39 item 10: it printed nothing and left the tab open).
	e.n.lua(t, `_G.NVT_notes = {}
		local orig = vim.notify
		vim.notify = function(msg, level, o) table.insert(_G.NVT_notes, msg) return orig(msg, level, o) end`)
	e.n.ex(t, "ClaudeCodeReviewRevert")
	waitFor(t, "the whole file back", func() bool { return harness.FileText(a) == before })
	buf := `vim.fn.bufnr(` + luaString(a) + `)`
	if got := e.n.str(t, `return table.concat(vim.api.nvim_buf_get_lines(`+buf+`, 0, -1, false), "\n")`); got+"\n" != before || e.n.str(t, `return tostring(vim.bo[`+buf+`].modified)`) != "false" {
		t.Errorf("buffer %q after :ClaudeCodeReviewRevert", got)
	}
	e.n.waitLua(t, `1`, `return vim.fn.tabpagenr("$")`)
	if notes := e.n.str(t, `return table.concat(_G.NVT_notes, "\n")`); !strings.Contains(notes, "reverted a.txt to its text at the start of turn 1") {
		t.Errorf("notifications after :ClaudeCodeReviewRevert: %q", notes)
	}
}

// Issue 26 item 3: a session's state reaches status() and the User events through the bridge's
// hook command (`claude-ide-bridge hook --port N`, run here as the CLI runs it: the event's JSON
// on stdin, with the CLI's environment), and a session that starts waiting while the user is
// elsewhere is notified.
func TestClaudeStateInStatus(t *testing.T) {
	// permissions = false: the PermissionRequest hook below is about Claude's state; with the
	// prompt on, the hook would wait for an answer in Neovim (issue 37).
	e := newEnv(t, map[string]any{"permissions": false}, false)
	port, _ := readLock(t, e.cfg)
	e.n.lua(t, `_G.NVT_waits = {}
		vim.api.nvim_create_autocmd("User", { pattern = "ClaudeCodeWaiting", callback = function(ev)
			local d = ev.data or require("claude-ide-bridge.events").data
			table.insert(_G.NVT_waits, d.reason)
		end })
		_G.NVT_notes = {}
		local orig = vim.notify
		vim.notify = function(msg, level, o) table.insert(_G.NVT_notes, msg) return orig(msg, level, o) end`)
	hook := func(ev map[string]any) { t.Helper(); harness.QuietHook(t, bridgeBin, e.cfg, port, ev) }
	status := func() string {
		return e.n.str(t, `local s = require("claude-ide-bridge").status()
			local out = { tostring(s.claude) }
			for _, x in ipairs(s.claude_sessions) do out[#out + 1] = x.id .. "=" .. x.state .. ":" .. tostring(x.reason) end
			return table.concat(out, " ")`)
	}
	hook(map[string]any{"hook_event_name": "SessionStart", "session_id": "s1", "cwd": e.proj, "source": "startup"})
	hook(map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": "secret prompt"})
	waitFor(t, "working", func() bool { return status() == "working s1=working:nil" })
	hook(map[string]any{"hook_event_name": "PermissionRequest", "session_id": "s1", "tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf x"}})
	waitFor(t, "waiting", func() bool { return status() == "waiting s1=waiting:permission for Bash" })
	if got := e.n.str(t, `return table.concat(_G.NVT_waits, ",")`); got != "permission for Bash" {
		t.Errorf("ClaudeCodeWaiting fired with %q", got)
	}
	if got := e.n.str(t, `return table.concat(_G.NVT_notes, "\n")`); !strings.Contains(got, "Claude is waiting for you: permission for Bash") {
		t.Errorf("no notification of the wait: %q", got)
	}
	hook(map[string]any{"hook_event_name": "PostToolUse", "session_id": "s1", "tool_name": "Bash"})
	hook(map[string]any{"hook_event_name": "Stop", "session_id": "s1"})
	waitFor(t, "idle", func() bool { return status() == "idle s1=idle:nil" })
	hook(map[string]any{"hook_event_name": "SessionEnd", "session_id": "s1", "reason": "other"})
	waitFor(t, "ended", func() bool { return status() == "nil" })
}

// A file you save in Neovim while Claude's turn runs is yours: the record of the turn leaves it
// out (the plugin tells the bridge of each save), while a change by other means is listed.
func TestUserSaveDuringTurnNotClaudes(t *testing.T) {
	e := newEnv(t, nil, true)
	mine := e.file(t, "mine.txt", "mine\n")
	other := e.file(t, "other.txt", "other\n")
	e.edit(t, mine)
	time.Sleep(100 * time.Millisecond) // not an assertion: the files predate the prompt
	e.c.tool(t, "closeAllDiffTabs", map[string]any{})
	e.n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, -1, false, { "edited by me" })`)
	e.n.ex(t, "write")
	e.file(t, "other.txt", "changed by a Bash command\n")
	turn := func() string {
		raw := e.n.lua(t, `local done, res
			require("claude-ide-bridge.state").request("review", { turn = 1 }, function(err, a) res, done = a, true end)
			vim.wait(5000, function() return done end, 10)
			local out = {}
			for _, f in ipairs(res and res.report.files or {}) do out[#out + 1] = f.path end
			return table.concat(out, ",")`)
		var s string
		json.Unmarshal(raw, &s)
		return s
	}
	waitFor(t, "other.txt in the turn", func() bool { return turn() == other })
	time.Sleep(300 * time.Millisecond) // not an assertion: lets a wrong record of mine.txt arrive
	if got := turn(); got != other {
		t.Errorf("turn 1 lists %q, want only %s (mine.txt was the user's save)", got, other)
	}
	_ = mine
}
