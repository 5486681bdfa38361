package nvimtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// untilSelection waits for Claude's selection_changed in file want, failing on any
// selection_changed in a file named bad before it.
func (e *env) untilSelection(t *testing.T, want, bad string) {
	t.Helper()
	e.c.waitNote(t, "selection_changed", func(p json.RawMessage) bool {
		s, _ := decodeSel(p)
		if strings.HasSuffix(s.FilePath, bad) {
			t.Fatalf("Claude got a selection in %s: %s", bad, p)
		}
		return strings.HasSuffix(s.FilePath, want)
	})
}

// Issue 28 item 7, from Neovim: "an excluded file's selection never reaches a Claude-side
// client". With the default globs, moving and selecting in .env sends nothing, @-mentioning it is
// refused with a notice, and getOpenEditors leaves it out; main.go is shared as before.
func TestExcludeFromNeovim(t *testing.T) {
	e := newEnv(t, nil, true)
	env := e.file(t, ".env", "SECRET=hunter2\nTOKEN=x\n")
	main := e.file(t, "main.go", "package main\n")
	e.sendRefused(t, env)
	e.edit(t, main)
	e.untilSelection(t, "main.go", ".env")
	r := e.c.tool(t, "getOpenEditors", map[string]any{})
	if got := strings.Join(r.texts(), ""); strings.Contains(got, ".env") || !strings.Contains(got, "main.go") {
		t.Fatalf("getOpenEditors: %s", got)
	}
	_ = main
}

// Issue 35 item 2, from Neovim: a symlink settings.txt -> .env is .env. Selecting in it sends
// nothing, :ClaudeCodeSend of it is refused with a notice, getOpenEditors and getDiagnostics
// leave it out.
func TestExcludeSymlinkFromNeovim(t *testing.T) {
	e := newEnv(t, nil, true)
	e.file(t, ".env", "SECRET=hunter2\nTOKEN=x\n")
	main := e.file(t, "main.go", "package main\n")
	link := filepath.Join(e.proj, "settings.txt")
	if err := os.Symlink(".env", link); err != nil {
		t.Fatal(err)
	}
	e.sendRefused(t, link)
	e.edit(t, main)
	e.untilSelection(t, "main.go", "settings.txt")
	for _, tool := range []string{"getOpenEditors", "getDiagnostics", "getLatestSelection"} {
		r := e.c.tool(t, tool, map[string]any{})
		if got := strings.Join(r.texts(), ""); strings.Contains(got, "settings.txt") || strings.Contains(got, "hunter2") {
			t.Errorf("%s: %s", tool, got)
		}
	}
}

// Issue 28 item 7: "a command to pause and resume sharing at runtime, shown in status(); a closed
// buffer's selection is never sent later."
func TestPauseSharingFromNeovim(t *testing.T) {
	e := newEnv(t, nil, true)
	a := e.file(t, "a.txt", "one\ntwo\nthree\n")
	b := e.file(t, "b.txt", "bee\n")
	e.edit(t, a)
	e.untilSelection(t, "a.txt", "b.txt")
	e.n.ex(t, "ClaudeCodePause")
	e.n.waitLua(t, `true`, `return require("claude-ide-bridge").status().paused`)
	e.n.waitLua(t, `true`, `return vim.fn.execute("messages"):find("sharing paused", 1, true) ~= nil`)
	e.edit(t, b)
	e.n.input(t, "v")
	e.n.ex(t, "sleep 300m")
	e.n.input(t, "<Esc>")
	if r := e.c.tool(t, "getOpenEditors", map[string]any{}); strings.Contains(strings.Join(r.texts(), ""), "a.txt") {
		t.Fatalf("getOpenEditors while paused: %s", r.texts())
	}
	if r := e.c.tool(t, "getLatestSelection", map[string]any{}); strings.Contains(strings.Join(r.texts(), ""), "txt") {
		t.Fatalf("getLatestSelection while paused: %s", r.texts())
	}
	e.n.ex(t, "ClaudeCodeResume")
	e.n.waitLua(t, `false`, `return require("claude-ide-bridge").status().paused`)
	e.n.input(t, "j") // b.txt has one line: move within it
	e.n.lua(t, `vim.api.nvim_win_set_cursor(0, {1, 1})`)
	e.untilSelection(t, "b.txt", "a.txt")

	// b.txt's buffer is closed; a Claude that connects afterwards is not told its selection.
	e.n.ex(t, "enew")
	e.n.ex(t, "bwipeout! "+b)
	e.n.ex(t, "sleep 200m")
	late := dialClaude(t, e.cfg)
	if r := late.tool(t, "getLatestSelection", map[string]any{}); strings.Contains(strings.Join(r.texts(), ""), "b.txt") {
		t.Fatalf("a new session got the closed buffer's selection: %s", r.texts())
	}
	// The bridge tells a new session the latest selection once it listens (within ~1 s).
	timeout := time.After(2 * time.Second)
	for {
		select {
		case m := <-late.notes:
			if m.Method == "selection_changed" && strings.Contains(string(m.Params), "b.txt") {
				t.Fatalf("a new session got the closed buffer's selection: %s", m.Params)
			}
			continue
		case <-timeout:
		}
		break
	}
}

// sendRefused selects two lines of path and sends them with :ClaudeCodeSend, which must refuse
// an excluded file with a notice.
func (e *env) sendRefused(t *testing.T, path string) {
	t.Helper()
	e.edit(t, path)
	e.n.input(t, "Vj")
	e.n.ex(t, "sleep 200m")
	e.n.input(t, "<Esc>")
	e.n.ex(t, "ClaudeCodeSend")
	e.n.waitLua(t, `true`, `return vim.fn.execute("messages"):find("excluded from sharing", 1, true) ~= nil`)
}
