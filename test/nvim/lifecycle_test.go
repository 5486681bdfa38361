package nvimtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/seltable"
)

// Issue: ":ClaudeCode to open or focus a terminal split running claude
// (option terminal_cmd) with CLAUDE_CODE_SSE_PORT, ENABLE_IDE_INTEGRATION=true
// and loopback in no_proxy"; "The Claude terminal buffer is never reported as
// a selection."
func TestTerminal(t *testing.T) {
	root := t.TempDir()
	envFile := filepath.Join(root, "env")
	e := newEnv(t, map[string]any{
		"terminal_cmd": []string{"sh", "-c", "env > " + envFile + ".tmp && mv " + envFile + ".tmp " + envFile + "; exec cat"},
	}, true)
	path := e.file(t, "a.txt", "abc\ndef\n")
	e.edit(t, path)
	e.waitSelection(t, seltable.Sel(path, "", 0, 0, 0, 0))

	e.n.ex(t, "ClaudeCode")
	waitFor(t, "the terminal's environment", func() bool { _, err := os.Stat(envFile); return err == nil })
	port, _ := readLock(t, e.cfg)
	vars := map[string]string{}
	for _, l := range strings.Split(harness.FileText(envFile), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			vars[k] = v
		}
	}
	if vars["CLAUDE_CODE_SSE_PORT"] != itoa(port) || vars["ENABLE_IDE_INTEGRATION"] != "true" {
		t.Fatalf("terminal env: CLAUDE_CODE_SSE_PORT=%q ENABLE_IDE_INTEGRATION=%q", vars["CLAUDE_CODE_SSE_PORT"], vars["ENABLE_IDE_INTEGRATION"])
	}
	for _, h := range []string{"127.0.0.1", "localhost", "::1"} {
		if !strings.Contains(","+vars["no_proxy"]+",", ","+h+",") {
			t.Fatalf("no_proxy %q lacks %s", vars["no_proxy"], h)
		}
	}

	// Move about in the terminal, then back to the file: only the file is
	// ever reported. The plugin's counters show that a debounced check ran
	// while the terminal was current and sent nothing.
	var before struct{ Flushes, Sent int }
	e.n.luaInto(t, &before, `return require("claude-ide-bridge.tracker").stats()`)
	e.n.input(t, `<C-\><C-n>kk`)
	e.n.waitLua(t, `"terminal"`, `return vim.bo.buftype`)
	var after struct{ Flushes, Sent int }
	waitFor(t, "a selection check in the terminal", func() bool {
		e.n.luaInto(t, &after, `return require("claude-ide-bridge.tracker").stats()`)
		return after.Flushes > before.Flushes
	})
	if after.Sent != before.Sent {
		t.Fatalf("%d selection(s) sent from the terminal", after.Sent-before.Sent)
	}
	var wins int
	e.n.luaInto(t, &wins, `return #vim.api.nvim_list_wins()`)
	e.n.ex(t, "wincmd p")
	e.n.ex(t, "ClaudeCode") // focuses the existing terminal
	e.n.waitLua(t, `"terminal"`, `return vim.bo.buftype`)
	var wins2 int
	e.n.luaInto(t, &wins2, `return #vim.api.nvim_list_wins()`)
	if wins2 != wins {
		t.Fatalf(":ClaudeCode opened another window (%d, was %d)", wins2, wins)
	}
	e.n.input(t, `<C-\><C-n>`)
	e.n.ex(t, "wincmd p")
	e.n.input(t, "jl")
	e.c.waitNote(t, "selection_changed", func(p json.RawMessage) bool {
		got, _ := decodeSel(p)
		if got.FilePath != path {
			t.Errorf("selection of %q reported", got.FilePath)
		}
		return got == seltable.Sel(path, "", 1, 1, 1, 1)
	})
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// :ClaudeCodeStop ends the bridge (its lock file goes); :ClaudeCodeStart
// brings a new one.
func TestStopStart(t *testing.T) {
	e := newEnv(t, nil, false)
	readLock(t, e.cfg)
	e.n.ex(t, "ClaudeCodeStop")
	waitFor(t, "the lock file to go", func() bool {
		names, _ := filepath.Glob(filepath.Join(e.cfg, "ide", "*.lock"))
		return len(names) == 0
	})
	e.n.waitLua(t, `false`, `return require("claude-ide-bridge").state().running`)
	e.n.ex(t, "ClaudeCodeStart")
	e.n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
	readLock(t, e.cfg)
	// The status line is the bridge's: its clientsLine (ide.Agents.Line), not a count of its own.
	e.n.lua(t, `_G.NVT_status = nil
		local notify = vim.notify
		vim.notify = function(msg, ...) if msg:find("port ", 1, true) then _G.NVT_status = msg end return notify(msg, ...) end`)
	e.n.ex(t, "ClaudeCodeStatus")
	e.n.waitLua(t, `true`, `return _G.NVT_status ~= nil`)
	if got := e.n.str(t, `return _G.NVT_status`); !strings.Contains(got, ", no clients, lock ") {
		t.Errorf(":ClaudeCodeStatus said %q, want the bridge's \"no clients\"", got)
	}
}

func TestCheckhealth(t *testing.T) {
	e := newEnv(t, nil, false)
	e.n.ex(t, "checkhealth claude-ide-bridge")
	text := e.n.str(t, `return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")`)
	if !strings.Contains(text, "bridge binary: "+bridgeBin) || !strings.Contains(text, "bridge running on port") {
		t.Fatalf("checkhealth:\n%s", text)
	}
	if strings.Contains(text, "ERROR") {
		t.Fatalf("checkhealth reports an error:\n%s", text)
	}
}

// auto_start = false: setup() does not start the bridge.
func TestNoAutoStart(t *testing.T) {
	root := t.TempDir()
	n := startNvim(t, root, "CLAUDE_CONFIG_DIR="+root)
	n.lua(t, `require("claude-ide-bridge").setup(...)`, map[string]any{"bin": bridgeBin, "auto_start": false})
	if got := n.lua(t, `return require("claude-ide-bridge").state().running`); string(got) != "false" {
		t.Fatalf("running = %s after setup with auto_start = false", got)
	}
}

// After claude exits, :ClaudeCode starts a new one in its window.
func TestTerminalRestartsAfterExit(t *testing.T) {
	root := t.TempDir()
	count := filepath.Join(root, "runs")
	e := newEnv(t, map[string]any{
		"terminal_cmd": []string{"sh", "-c", "echo run >> " + count},
	}, false)
	e.n.ex(t, "ClaudeCode")
	waitFor(t, "the first run", func() bool { return harness.FileText(count) == "run\n" })
	e.n.waitLua(t, `false`, `return require("claude-ide-bridge.terminal").running()`)
	var wins int
	e.n.luaInto(t, &wins, `return #vim.api.nvim_list_wins()`)
	e.n.ex(t, "ClaudeCode")
	waitFor(t, "the second run", func() bool { return harness.FileText(count) == "run\nrun\n" })
	e.n.waitLua(t, itoa(wins), `return #vim.api.nvim_list_wins()`)
}
