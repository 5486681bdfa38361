package nvimtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// setupNotes runs setup(opts) in n with vim.notify and vim.deprecate recorded, and returns
// what setup() returned or raised, the notifications and the deprecation reports.
func setupNotes(t *testing.T, n *nvim, opts any) (raised string, notes []note, deprecated []string) {
	t.Helper()
	var r struct {
		Raised     string   `json:"raised"`
		Notes      []note   `json:"notes"`
		Deprecated []string `json:"deprecated"`
	}
	n.luaInto(t, &r, `local notes, deprecated = {}, {}
		local orig_notify, orig_deprecate = vim.notify, vim.deprecate
		vim.notify = function(msg, level) table.insert(notes, { msg = msg, level = level or -1 }) end
		vim.deprecate = function(name, ...) table.insert(deprecated, tostring(name)) end
		local ok, err = pcall(require("claude-ide-bridge").setup, ...)
		vim.notify, vim.deprecate = orig_notify, orig_deprecate
		return { raised = ok and "" or tostring(err), notes = notes, deprecated = deprecated }`, opts)
	return r.Raised, r.Notes, r.Deprecated
}

type note struct {
	Msg   string `json:"msg"`
	Level int    `json:"level"`
}

const levelError = 4 // vim.log.levels.ERROR

// Options are checked with vim.validate in setup() (issue 16 item 6, issue 17: "Options
// validated (vim.validate), with a clear message naming the bad option"). A wrong type or an
// unknown key is ONE ERROR notification naming it (not a Lua error out of setup(), which
// lazy.nvim would show as a traceback at every start); the bad option gets its default and the
// rest apply. A correct config says nothing. On Neovim 0.11+ vim.validate's table form reports
// itself to vim.deprecate (:checkhealth vim.deprecated): setup() must not call it.
func TestOptionValidation(t *testing.T) {
	n := startNvim(t, t.TempDir())
	cases := []struct {
		opts map[string]any
		want string
	}{
		{map[string]any{"auto_start": "yes"}, "option auto_start: expected boolean, got string"},
		{map[string]any{"terminal": map[string]any{"size": 2}}, "option terminal.size: expected a fraction of the screen in (0, 1], got 2"},
		{map[string]any{"terminal": map[string]any{"provider": "kitty"}}, "option terminal.provider: expected one of native, snacks, external, none"},
		{map[string]any{"terminal": map[string]any{"provider": "external"}}, "option terminal.external_cmd:"},
		{map[string]any{"terminal": "float"}, "option terminal: expected table, got string"},
		{map[string]any{"terminal_cmd": []any{}}, "option terminal_cmd:"},
		{map[string]any{"selection_debounce_ms": -1}, "option selection_debounce_ms:"},
		{map[string]any{"ide_name": 3}, "option ide_name: expected string, got number"},
		{map[string]any{"install": map[string]any{"base_url": false}}, "option install.base_url: expected string"},
		{map[string]any{"colour": "red"}, "option colour: no such option"},
		{map[string]any{"terminal": map[string]any{"colour": "red"}}, "option terminal.colour: no such option"},
		{map[string]any{"remote": map[string]any{"cmd": "ssh host"}}, "option remote: expected false, or { cmd ="},
		{map[string]any{"permissions": map[string]any{"tools": "Bash"}}, `option permissions: expected a boolean or { tools = { "Bash"`},
		{map[string]any{"permissions": map[string]any{"tool": []string{"Bash"}}}, `option permissions: expected a boolean or { tools = { "Bash"`},
	}
	for _, c := range cases {
		opts := map[string]any{"auto_start": false}
		for k, v := range c.opts {
			opts[k] = v
		}
		raised, all, deprecated := setupNotes(t, n, opts)
		// auto_start "yes" falls back to true: the bridge then says it has no binary.
		var notes []note
		for _, nt := range all {
			if strings.HasPrefix(nt.Msg, "claude-ide-bridge: option ") {
				notes = append(notes, nt)
			}
		}
		if raised != "" {
			t.Errorf("setup(%v) raised %q; want a notification", c.opts, raised)
		}
		if len(notes) != 1 || notes[0].Level != levelError || !strings.Contains(notes[0].Msg, "claude-ide-bridge: "+c.want) {
			t.Errorf("setup(%v): notifications %+v, want one ERROR containing %q", c.opts, notes, "claude-ide-bridge: "+c.want)
		} else if strings.Contains(notes[0].Msg, "stack traceback") || strings.Contains(notes[0].Msg, ".lua:") {
			t.Errorf("setup(%v): %q reads like a Lua error, not a message for the user", c.opts, notes[0].Msg)
		}
		if len(deprecated) > 0 {
			t.Errorf("setup(%v) called vim.deprecate for %v", c.opts, deprecated)
		}
	}

	// The bad option gets its default; the good ones beside it apply.
	_, notes, _ := setupNotes(t, n, map[string]any{"auto_start": false, "ide_name": "Mine",
		"terminal": map[string]any{"size": "wide", "split": "topleft"}, "colour": "red"})
	if len(notes) != 1 || !strings.Contains(notes[0].Msg, "option terminal.size:") || !strings.Contains(notes[0].Msg, "option colour: no such option") {
		t.Fatalf("two bad options: notifications %+v, want one naming both", notes)
	}
	var got struct {
		Size  float64 `json:"size"`
		Split string  `json:"split"`
		Name  string  `json:"name"`
		Cmd   bool    `json:"cmd"`
	}
	n.luaInto(t, &got, `local o = require("claude-ide-bridge.config").options
		return { size = o.terminal.size, split = o.terminal.split, name = o.ide_name, cmd = vim.fn.exists(":ClaudeCode") == 2 }`)
	if got.Size != 0.35 || got.Split != "topleft" || got.Name != "Mine" || !got.Cmd {
		t.Fatalf("after a bad terminal.size: %+v, want size 0.35 (the default), split topleft and ide_name Mine (as given), :ClaudeCode defined", got)
	}

	// :checkhealth says it too, for the user who missed the notification.
	n.ex(t, "checkhealth claude-ide-bridge")
	if text := n.str(t, `return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")`); !strings.Contains(text, "setup() ignored these options") ||
		!strings.Contains(text, "terminal.size: expected") {
		t.Fatalf("checkhealth after bad options:\n%s", text)
	}

	// A bad `remote` does not fall back to a local bridge: auto_start is off.
	_, _, _ = setupNotes(t, n, map[string]any{"remote": map[string]any{"cmd": []any{}}, "bin": "/nonexistent/claude-ide-bridge"})
	var st struct {
		Running bool `json:"running"`
	}
	n.luaInto(t, &st, `return require("claude-ide-bridge").state()`)
	if st.Running {
		t.Fatal("a bad remote started a bridge")
	}

	// A correct config: no notification, no deprecation, the values in force.
	raised, notes, deprecated := setupNotes(t, n, map[string]any{
		"auto_start": false, "ide_name": "Neovim main", "selection_debounce_ms": 10, "terminal_cmd": []any{"claude", "--verbose"},
		"terminal": map[string]any{"provider": "external", "external_cmd": "tmux split-window %s", "float": true, "size": 0.5},
		"install":  map[string]any{"base_url": "http://127.0.0.1:1/releases"},
		"remote":   map[string]any{"cmd": []any{"ssh", "box"}, "path_map": map[string]any{"/a": "/b"}, "shell": true},
	})
	if raised != "" || len(notes) != 0 || len(deprecated) != 0 {
		t.Fatalf("valid options: raised %q, notifications %+v, deprecations %v; want none", raised, notes, deprecated)
	}
	var size float64
	n.luaInto(t, &size, `return require("claude-ide-bridge.config").options.terminal.size`)
	if size != 0.5 {
		t.Fatalf("terminal.size %v after a valid setup, want 0.5", size)
	}
	n.ex(t, "checkhealth claude-ide-bridge")
	if text := n.str(t, `return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")`); strings.Contains(text, "ignored") {
		t.Fatalf("checkhealth after valid options:\n%s", text)
	}
	// What a user sees (setupNotes restored vim.deprecate, and setup() ran many times above):
	// :checkhealth vim.deprecated (Neovim 0.11+) lists no vim.validate call of ours.
	if n.str(t, `return tostring(vim.fn.has("nvim-0.11"))`) == "1" {
		n.lua(t, `require("claude-ide-bridge").setup(...)`, map[string]any{"auto_start": false, "terminal": map[string]any{"size": 0.5}})
		n.ex(t, "checkhealth vim.deprecated")
		if text := n.str(t, `return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")`); strings.Contains(text, "vim.validate") {
			t.Fatalf(":checkhealth vim.deprecated names vim.validate:\n%s", text)
		}
	}
}

// An unknown option does not keep the plugin from starting: the bridge starts with the rest.
func TestBadOptionStillStarts(t *testing.T) {
	n := startNvim(t, t.TempDir())
	_, notes, _ := setupNotes(t, n, map[string]any{"bin": bridgeBin, "colour": "red", "track_selection": "yes"})
	if len(notes) != 1 || notes[0].Level != levelError || !strings.Contains(notes[0].Msg, "option colour: no such option") ||
		!strings.Contains(notes[0].Msg, "option track_selection: expected boolean") {
		t.Fatalf("notifications %+v, want one ERROR naming colour and track_selection", notes)
	}
	n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
	n.lua(t, `require("claude-ide-bridge").stop()`)
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
	waitEvent("ClaudeCodeConnected", map[string]any{"clients": 1, "agent": "claude", "agents": map[string]int{"claude": 1}})
	if s := st(); s != (status{true, port, 1, 0}) {
		t.Fatalf("status() %+v with a client", s)
	}
	// Who is connected by CLI, as the bridge counts them (clientConnected's agents).
	if got := e.n.str(t, `return vim.inspect(require("claude-ide-bridge").status().agents)`); got != `{
  claude = 1
}` {
		t.Errorf("status().agents = %s", got)
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
	waitEvent("ClaudeCodeDisconnected", map[string]any{"clients": 0, "agent": "claude"})
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
			// --permission-mode default and the bridge's hooks first: TestClaudeCodePermissionMode.
			port, _ := readLock(t, e.cfg)
			hooks := filepath.Join(e.cfg, "ide", itoa(port)+".settings.json")
			if got := harness.FileText(out); got != "--permission-mode\ndefault\n--settings\n"+hooks+"\n--resume\n" {
				t.Fatalf("the CLI got %q, want --permission-mode default --settings %s --resume", got, hooks)
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
	if got, want := harness.FileText(out), itoa(port)+"\ntrue\n--permission-mode\ndefault\n--settings\n"+filepath.Join(e.cfg, "ide", itoa(port)+".settings.json")+"\n--continue\n"; got != want {
		t.Fatalf("external command got %q, want %q", got, want)
	}
}
