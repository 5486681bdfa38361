package nvimtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bad option is refused by setup() with a message naming it (issue 17: "Options validated
// (vim.validate), with a clear message naming the bad option"); good ones pass.
func TestOptionValidation(t *testing.T) {
	n := startNvim(t, t.TempDir())
	cases := []struct {
		opts map[string]any
		want string
	}{
		{map[string]any{"auto_start": "yes"}, "option auto_start: expected boolean"},
		{map[string]any{"terminal": map[string]any{"size": 2}}, "option terminal.size:"},
		{map[string]any{"terminal": map[string]any{"provider": "kitty"}}, "option terminal.provider: expected one of native, snacks, external, none"},
		{map[string]any{"terminal": map[string]any{"provider": "external"}}, "option terminal.external_cmd:"},
		{map[string]any{"terminal_cmd": []any{}}, "option terminal_cmd:"},
		{map[string]any{"selection_debounce_ms": -1}, "option selection_debounce_ms:"},
		{map[string]any{"ide_name": 3}, "option ide_name: expected string"},
		{map[string]any{"install": map[string]any{"base_url": false}}, "option install.base_url:"},
		{map[string]any{"colour": "red"}, "option colour: no such option"},
	}
	for _, c := range cases {
		var got string
		n.luaInto(t, &got, `local ok, err = pcall(require("claude-ide-bridge").setup, ...)
			return ok and "accepted" or tostring(err)`, c.opts)
		if !strings.Contains(got, "claude-ide-bridge: "+c.want) {
			t.Errorf("setup(%v): %q, want it to contain %q", c.opts, got, c.want)
		}
	}
	var ok bool
	n.luaInto(t, &ok, `return pcall(require("claude-ide-bridge").setup, ...)`, map[string]any{
		"auto_start": false,
		"terminal":   map[string]any{"provider": "external", "external_cmd": "tmux split-window %s", "float": true},
	})
	if !ok {
		t.Fatal("valid options refused")
	}
}

// The lock's ideName tells Neovim instances apart in the CLI's /ide list: "Neovim (<working
// directory's name>)" unless the ide_name option says otherwise.
func TestIdeName(t *testing.T) {
	e := newEnv(t, nil, false)
	if _, l := readLock(t, e.cfg); l.IdeName != "Neovim (proj)" {
		t.Fatalf("ideName %q, want %q", l.IdeName, "Neovim (proj)")
	}
	e.stopBridge(t)
	e.n.lua(t, `require("claude-ide-bridge").setup(...)`, map[string]any{"bin": bridgeBin, "ide_name": "Neovim main"})
	e.n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
	if _, l := readLock(t, e.cfg); l.IdeName != "Neovim main" {
		t.Fatalf("ideName %q, want the option's %q", l.IdeName, "Neovim main")
	}
}

// The User events carry their data (on 0.7, which has no autocommand data, in
// require("claude-ide-bridge.events").data while the listeners run), and status() follows the
// bridge: running, port, clients, pending diffs.
func TestEventsAndStatus(t *testing.T) {
	e := newEnv(t, nil, false)
	e.n.lua(t, `_G.EV = {}
		for _, name in ipairs({ "ClaudeCodeConnected", "ClaudeCodeDisconnected", "ClaudeCodeDiffOpened", "ClaudeCodeDiffClosed" }) do
			vim.api.nvim_create_autocmd("User", { pattern = name, callback = function(ev)
				local data = ev.data or require("claude-ide-bridge.events").data
				table.insert(_G.EV, { name = name, data = data })
			end })
		end`)
	port, _ := readLock(t, e.cfg)
	type status struct {
		Running      bool `json:"running"`
		Port         int  `json:"port"`
		Clients      int  `json:"clients"`
		PendingDiffs int  `json:"pending_diffs"`
	}
	st := func() status {
		var s status
		e.n.luaInto(t, &s, `return require("claude-ide-bridge").status()`)
		return s
	}
	if s := st(); s != (status{true, port, 0, 0}) {
		t.Fatalf("status() %+v before a client", s)
	}
	type event struct {
		Name string         `json:"name"`
		Data map[string]any `json:"data"`
	}
	waitEvent := func(want string, data map[string]any) {
		t.Helper()
		var last []event
		ok := poll(func() bool {
			raw, err := e.n.tryLua(`return _G.EV`)
			if err != nil {
				return false
			}
			last = nil
			json.Unmarshal(raw, &last)
			for _, ev := range last {
				if ev.Name != want {
					continue
				}
				match := true
				for k, v := range data {
					if got, _ := json.Marshal(ev.Data[k]); string(got) != mustJSON(v) {
						match = false
					}
				}
				if match {
					return true
				}
			}
			return false
		})
		if !ok {
			t.Fatalf("no %s with %v; events: %+v", want, data, last)
		}
	}

	e.c = dialClaude(t, e.cfg)
	waitEvent("ClaudeCodeConnected", map[string]any{"clients": 1})
	if s := st(); s != (status{true, port, 1, 0}) {
		t.Fatalf("status() %+v with a client", s)
	}

	path := e.file(t, "a.txt", "old\n")
	ch := e.openDiff(t, path, "new\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	waitEvent("ClaudeCodeDiffOpened", map[string]any{"file": path})
	if s := st(); s.PendingDiffs != 1 {
		t.Fatalf("status() %+v with a pending diff", s)
	}
	e.n.ex(t, "ClaudeCodeDiffDeny")
	await(t, ch)
	waitEvent("ClaudeCodeDiffClosed", map[string]any{"file": path, "accepted": false})
	e.waitDiffs(t)

	ch = e.openDiff(t, path, "newer\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	e.n.ex(t, "ClaudeCodeDiffAccept")
	await(t, ch)
	e.c.tool(t, "close_tab", map[string]any{"tab_name": tabA})
	waitEvent("ClaudeCodeDiffClosed", map[string]any{"file": path, "accepted": true})
	if s := st(); s.PendingDiffs != 0 {
		t.Fatalf("status() %+v after the diffs", s)
	}

	e.c.close()
	waitEvent("ClaudeCodeDisconnected", map[string]any{"clients": 0})
	e.stopBridge(t)
	if s := st(); s != (status{}) {
		t.Fatalf("status() %+v after stop", s)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// `:ClaudeCode --resume` passes its arguments to the CLI, for a terminal_cmd given as a list
// and as a string for the shell.
func TestClaudeCodeArgs(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "args")
	for _, tc := range []struct {
		name string
		cmd  any
	}{
		{"list", []string{"sh", "-c", `printf '%s\n' "$@" > ` + out + `.tmp && mv ` + out + `.tmp ` + out + `; exec cat`, "sh"}},
		{"string", `sh -c 'printf "%s\n" "$@" > ` + out + `.tmp && mv ` + out + `.tmp ` + out + `; exec cat' sh`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(out)
			// model_tools off: only the user's arguments here (--mcp-config has its own test).
			e := newEnv(t, map[string]any{"terminal_cmd": tc.cmd, "model_tools": false}, false)
			e.n.ex(t, "ClaudeCode --resume")
			waitFor(t, "the CLI's arguments", func() bool { _, err := os.Stat(out); return err == nil })
			if got := fileText(t, out); got != "--resume\n" {
				t.Fatalf("the CLI got %q, want --resume", got)
			}
			// :ClaudeCode in claude's window hides it; claude keeps running; again shows it.
			e.n.waitLua(t, `true`, `return vim.bo.buftype == "terminal"`)
			e.n.ex(t, "ClaudeCode")
			e.n.waitLua(t, `false`, `return vim.bo.buftype == "terminal"`)
			e.n.waitLua(t, `true`, `return require("claude-ide-bridge.terminal").running()`)
			e.n.ex(t, "ClaudeCode")
			e.n.waitLua(t, `true`, `return vim.bo.buftype == "terminal"`)
			e.n.ex(t, "ClaudeCodeClose")
			e.n.waitLua(t, `false`, `return require("claude-ide-bridge.terminal").running()`)
		})
	}
}

// :ClaudeCodeTreeAdd in netrw (the real netrw shipped with Neovim) sends the file under the
// cursor, and with a range every file on it, as @-mentions of the whole file.
func TestTreeAddNetrw(t *testing.T) {
	e := newEnv(t, nil, true)
	a := e.file(t, "a.txt", "a\n")
	b := e.file(t, "b.txt", "b\n")
	e.n.ex(t, "runtime! plugin/netrwPlugin.vim")
	e.n.ex(t, "let g:netrw_banner = 0")
	e.n.ex(t, "edit "+e.proj)
	e.n.waitLua(t, `"netrw"`, `return vim.bo.filetype`)
	lineOf := func(name string) int {
		var l int
		e.n.luaInto(t, &l, `for i, s in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
			if s == ... then return i end end return 0`, name)
		if l == 0 {
			t.Fatalf("netrw lists no %s: %s", name, e.lines(t, `return vim.api.nvim_buf_get_lines(0, 0, -1, false)`))
		}
		return l
	}
	la, lb := lineOf("a.txt"), lineOf("b.txt")
	e.n.lua(t, `vim.api.nvim_win_set_cursor(0, { ..., 0 })`, lb)
	e.n.ex(t, "ClaudeCodeTreeAdd")
	e.waitMention(t, mention{FilePath: b})
	lo, hi := min(la, lb), max(la, lb)
	e.n.ex(t, itoa(lo)+","+itoa(hi)+"ClaudeCodeTreeAdd")
	// The bridge handles each request in its own goroutine: the two may arrive in either order.
	seen := map[string]bool{}
	e.c.waitNote(t, "at_mentioned", func(p json.RawMessage) bool {
		var m mention
		if json.Unmarshal(p, &m) == nil && m.LineStart == nil {
			seen[m.FilePath] = true
		}
		return seen[a] && seen[b]
	})
}

// The external provider runs external_cmd with %s replaced by the quoted `env VAR=... claude
// args` line: the command gets the bridge's port and :ClaudeCode's arguments (here `sh -c %s`
// stands in for e.g. `tmux split-window -h %s`).
func TestExternalProvider(t *testing.T) {
	out := filepath.Join(t.TempDir(), "got")
	e := newEnv(t, map[string]any{
		"terminal_cmd": []string{"sh", "-c", `printf '%s\n' "$CLAUDE_CODE_SSE_PORT" "$ENABLE_IDE_INTEGRATION" "$@" > ` + out + `.tmp && mv ` + out + `.tmp ` + out, "sh"},
		"terminal":     map[string]any{"provider": "external", "external_cmd": "sh -c %s"},
		"model_tools":  false, // only :ClaudeCode's own arguments here
	}, false)
	port, _ := readLock(t, e.cfg)
	e.n.ex(t, "ClaudeCode --continue")
	waitFor(t, "the external command", func() bool { _, err := os.Stat(out); return err == nil })
	if got, want := fileText(t, out), itoa(port)+"\ntrue\n--continue\n"; got != want {
		t.Fatalf("external command got %q, want %q", got, want)
	}
}
