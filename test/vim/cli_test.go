package vimtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// startRealClaude starts Vim with the real CLI (CLAUDE_BIN) talking to a fake model, runs
// before (the bridge may not be ready yet), then :ClaudeCode, and waits until the CLI is
// connected and ready for a prompt in Vim's terminal, which has the focus.
func startRealClaude(t *testing.T, before func(v *vim)) (*vim, *fakeapi.Server) {
	t.Helper()
	bin := harness.ClaudeBin(t, "the Vim plugin's test with the real Claude Code CLI")
	api := fakeapi.New()
	t.Cleanup(api.Close)
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	cfg := filepath.Join(tmp, "cfg")
	os.MkdirAll(cfg, 0o700)
	v := startVimEnv(t, append(harness.OfflineEnv(api.URL), "CLAUDE_CONFIG_DIR="+cfg),
		"let g:claude_ide_bridge_terminal_cmd = ['"+bin+"']", "let g:claude_ide_bridge_size = 0.6")
	harness.SeedConfig(t, cfg, v.ws)
	if before != nil {
		before(v)
	}
	v.waitEval("true", "claude_ide_bridge#State().ready")
	v.ex("ClaudeCode")
	t.Cleanup(func() { v.tryEval("execute('ClaudeCodeClose')") })
	if !harness.Poll(90*time.Second, func() bool {
		return v.state().Clients == 1 && strings.Contains(v.screen(), "? for shortcuts")
	}) {
		t.Fatalf("the CLI did not connect and get ready; screen:\n%s\nmessages:\n%s", v.screen(), v.messages())
	}
	return v, api
}

// The whole way in Vim: :ClaudeCode runs the real Claude Code CLI in Vim's :terminal with the
// environment the plugin gives it (and --permission-mode default, which the plugin adds: in the
// CLI's auto mode no edit would reach a diff); the CLI sees the selection, its Edit becomes a
// diff that :w accepts, the CLI (not the plugin) writes the file, and the file's buffer shows it.
func TestRealClaudeInTerminal(t *testing.T) {
	v, api := startRealClaude(t, func(v *vim) {
		path := v.file("hello.txt", "hello world\n")
		v.waitEval("true", "claude_ide_bridge#State().ready")
		v.ex("edit " + path)
	})
	path := filepath.Join(v.ws, "hello.txt")
	if !strings.Contains(v.screen(), "manual mode") && strings.Contains(v.screen(), "auto mode on") {
		t.Fatalf("the CLI runs in auto mode; screen:\n%s", v.screen())
	}
	// Back in the file (Ctrl-W p from the terminal), select "world", back to the terminal.
	v.keys("C-w", "p")
	v.waitEval(`""`, "&buftype")
	v.normal()
	v.keys("0", "w", "v", "e")
	v.waitEval(`"world"`, "json_decode(claude_ide_bridge#State().last).text")
	v.normal()
	v.ex("ClaudeCode")
	if !harness.Poll(harness.CLIStep, func() bool { return strings.Contains(v.screen(), "1 line selected") }) {
		t.Fatalf("the CLI does not show the selection; screen:\n%s", v.screen())
	}
	api.Push(fakeapi.Edit(path, "world", "there", "EDIT ACCEPTED")...)
	v.typeText("edit hello")
	time.Sleep(300 * time.Millisecond) // not an assertion: the TUI takes a burst ending in Enter as a paste
	v.keys("Enter")
	first := api.MustMain(t, 60*time.Second, 1, v.screen)
	if !strings.Contains(first.Text(), "selected the lines 1 to 1 from "+path) {
		t.Errorf("the model was not told the selection:\n%s", first.LastUserText())
	}
	if !harness.Poll(60*time.Second, func() bool { return len(v.state().Diffs) == 1 }) {
		t.Fatalf("no diff shown; screen:\n%s", v.screen())
	}
	if got := harness.FileText(path); got != "hello world\n" {
		t.Fatalf("file changed before the accept: %q", got)
	}
	// Issue 39 item 3 with the real CLI: the diff came while the user typed to Claude, so it did
	// not take the focus; the user goes to it (CTRL-W gt) and accepts with :w.
	if got := v.where(); got != "terminal t" {
		t.Fatalf("the diff took the focus from Claude's terminal: %q", got)
	}
	v.keys("C-w")
	v.typeText("gt")
	v.waitEval(`"acwrite"`, "&buftype")
	v.normal()
	v.typeText(":w")
	v.keys("Enter")
	if !harness.Poll(60*time.Second, func() bool { return harness.FileText(path) == "hello there\n" }) {
		t.Fatalf("the CLI did not write the accepted text; file %q; screen:\n%s", harness.FileText(path), v.screen())
	}
	v.waitDiffs()
	// Back in Claude's terminal in Terminal-Normal mode: the : command typed next is Vim's. Vim
	// draws no output of the job in that mode: `i` (typing to Claude again) shows the rest.
	v.waitEval(`"terminal n"`, `(&buftype == 'terminal' ? 'terminal' : bufname()) .. ' ' .. mode()`)
	v.typeText(":let g:typed = 1")
	v.keys("Enter")
	v.waitEval("1", "get(g:, 'typed', 0)")
	v.keys("i")
	if !harness.Poll(60*time.Second, func() bool { return strings.Contains(v.screen(), "EDIT ACCEPTED") }) {
		t.Fatalf("the turn did not finish; screen:\n%s", v.screen())
	}
	if s := v.typedToClaude(); strings.Contains(s, "g:typed") {
		t.Errorf("Claude got the command: %q", s)
	}
	v.waitEval(`["hello there"]`, "getbufline(bufnr('"+path+"'), 1, '$')")
	if strings.Contains(v.messages(), "hello.txt changed") {
		t.Errorf("a warning about hello.txt:\n%s", v.messages())
	}
}
