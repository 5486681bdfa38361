package vimtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// hook runs the bridge's PermissionRequest hook as the CLI does and returns what it prints.
func (v *vim) hook(input map[string]any) <-chan string {
	v.t.Helper()
	return harness.Hook(v.t, bridgeBin, v.cfg, v.state().Port, input)
}

// got waits for the hook's output.
func got(t *testing.T, out <-chan string) string {
	t.Helper()
	return testbin.Recv(t, out, "the hook did not end")
}

// answer types :ClaudeCodePermissions, as the user does, and waits for the popup's keys.
func (v *vim) answer() {
	v.t.Helper()
	v.typeText(":ClaudeCodePermissions")
	v.keys("Enter")
	if !harness.Poll(5*time.Second, func() bool { return strings.Contains(v.screen(), "[q] later") }) {
		v.t.Fatalf("the popup does not take the keys; screen:\n%s", v.screen())
	}
}

func (v *vim) pending(want int) {
	v.t.Helper()
	v.waitEval(strconv.Itoa(want), "claude_ide_bridge#State().permissions")
}

// Issue 37 in Vim: the prompt is a popup naming the session, the tool and the command with its
// control characters shown escaped; it takes no key and leaves the window and the mode alone;
// :ClaudeCodePermissions gives it the keys: y allows, r denies with the reason typed in; a
// withdrawn prompt goes, and one withdrawn while its reason is typed sends nothing. A long
// input is cut.
func TestPermissionPopup(t *testing.T) {
	v := startVim(t)
	v.waitEval("true", "claude_ide_bridge#State().ready")
	v.ex(`autocmd User ClaudeCodePermission let g:perm_events = get(g:, 'perm_events', 0) + 1`)
	win := v.str("string(win_getid())")
	out := v.hook(harness.Bash("session-abcdef", "touch x\x1b[2J\x07; echo"))
	v.pending(1)
	v.waitEval("1", "g:perm_events")
	if !harness.Poll(5*time.Second, func() bool { return strings.Contains(v.screen(), `command: touch x\x1b[2J\x07; echo`) }) {
		t.Fatalf("the popup does not show the escaped command; screen:\n%s", v.screen())
	}
	if s := v.screen(); !strings.Contains(s, "(session session-) asks to use Bash") || !strings.Contains(s, ":ClaudeCodePermissions to answer") {
		t.Fatalf("screen:\n%s", s)
	}
	if w := v.str("string(win_getid())"); w != win {
		t.Fatalf("the popup took the focus: window %s, was %s", w, win)
	}
	// Keys still go to the buffer: the popup takes none until asked to.
	v.keys("i")
	v.typeText("yes")
	v.normal()
	v.waitEval(`["yes"]`, "getline(1, '$')")
	v.pending(1)

	v.answer()
	if !strings.Contains(v.screen(), "[y] allow once  [a] allow always  [n] deny  [r] deny with a reason") {
		t.Fatalf("the popup does not show its keys; screen:\n%s", v.screen())
	}
	v.keys("y")
	if s := got(t, out); !strings.Contains(s, `"behavior":"allow"`) || strings.Contains(s, "updatedPermissions") {
		t.Fatalf("y: the hook printed %q", s)
	}
	v.pending(0)
	v.waitEval(`"n"`, "mode()")
	v.waitEval("[]", "popup_list()")

	out = v.hook(harness.Bash("session-2", "make"))
	v.pending(1)
	v.answer()
	v.keys("r")
	if !harness.Poll(5*time.Second, func() bool { return strings.Contains(v.screen(), "Reason (Claude gets it):") }) {
		t.Fatalf("no reason asked; screen:\n%s", v.screen())
	}
	v.typeText("use make test")
	v.keys("Enter")
	if s := got(t, out); !strings.Contains(s, `"behavior":"deny"`) || !strings.Contains(s, `"message":"use make test"`) {
		t.Fatalf("r: the hook printed %q", s)
	}
	v.pending(0)

	// Withdrawn (the session ended): the popup goes, the hook prints nothing.
	out = v.hook(harness.Bash("session-3", strings.Repeat("x", 20000)))
	v.pending(1)
	// Bounded: the bridge sends 16 KiB of its JSON as a string, the popup 4096 characters and a mark.
	v.waitEval(`[4098, " …"]`, `[strchars(claude_ide_bridge#permission#List()[0].input), claude_ide_bridge#permission#List()[0].input[-4 :]]`)
	got(t, v.hook(harness.SessionEnd("session-3")))
	v.pending(0)
	v.waitEval("[]", "popup_list()")
	if s := got(t, out); s != "" {
		t.Fatalf("withdrawn: the hook printed %q", s)
	}

	// Withdrawn while the reason is typed: the reason is not sent.
	out = v.hook(harness.Bash("session-4", "rm -rf build"))
	v.pending(1)
	v.answer()
	v.keys("r")
	if !harness.Poll(5*time.Second, func() bool { return strings.Contains(v.screen(), "Reason (Claude gets it):") }) {
		t.Fatalf("no reason asked; screen:\n%s", v.screen())
	}
	v.typeText("too late")
	got(t, v.hook(harness.SessionEnd("session-4")))
	if s := got(t, out); s != "" {
		t.Fatalf("withdrawn: the hook printed %q", s)
	}
	v.pending(0)
	v.keys("Enter")
	if !harness.Poll(5*time.Second, func() bool { return strings.Contains(v.messages(), "the reason was not sent") }) {
		t.Fatalf("messages:\n%s", v.messages())
	}
	time.Sleep(200 * time.Millisecond) // not an assertion: a refused decision's answer would be in by now
	if m := v.messages(); strings.Contains(m, "was not answered here") {
		t.Fatalf("a decision on the withdrawn question was sent:\n%s", m)
	}
	v.waitEval("[]", "popup_list()")
}

// g:claude_ide_bridge_permissions: v:false declares no capability (the hook falls through at
// once); a list asks only about those tools. An MCP tool's arguments are shown as JSON; CTRL-C
// on the popup keeps the question; a allows always (Claude's suggestion).
func TestPermissionsOption(t *testing.T) {
	v := startVim(t, "let g:claude_ide_bridge_permissions = v:false")
	v.waitEval("true", "claude_ide_bridge#State().ready")
	if s := got(t, v.hook(harness.Bash("s", "ls"))); s != "" {
		t.Fatalf("permissions off: the hook printed %q", s)
	}
	v.pending(0)

	w := startVim(t, "let g:claude_ide_bridge_permissions = ['WebFetch', 'mcp__*']")
	w.waitEval("true", "claude_ide_bridge#State().ready")
	if s := got(t, w.hook(harness.Bash("s", "ls"))); s != "" {
		t.Fatalf("Bash, not listed: the hook printed %q", s)
	}
	w.pending(0)
	out := w.hook(harness.PermissionRequest("s", "mcp__github__create_issue", map[string]any{"title": "x\x1by"}))
	w.pending(1)
	if !harness.Poll(5*time.Second, func() bool { return strings.Contains(w.screen(), `{"title":"x\u001by"}`) }) {
		t.Fatalf("the MCP tool's arguments are not shown; screen:\n%s", w.screen())
	}
	// CTRL-C closes a popup in Vim: the question stays, shown again, taking no key.
	w.answer()
	w.keys("C-c")
	if !harness.Poll(5*time.Second, func() bool { return strings.Contains(w.screen(), ":ClaudeCodePermissions to answer") }) {
		t.Fatalf("CTRL-C lost the question; screen:\n%s", w.screen())
	}
	w.pending(1)
	w.answer()
	w.keys("a")
	if s := got(t, out); !strings.Contains(s, `"behavior":"allow"`) || !strings.Contains(s, `"updatedPermissions":[{"type":"addRules"}]`) {
		t.Fatalf("a: the hook printed %q", s)
	}
}

// Issue 37 with the real CLI in Vim's terminal (--permission-mode default, which :ClaudeCode
// adds; a Bash command that writes a file): the question shows in a popup; CTRL-W
// :ClaudeCodePermissions then y allows it (the file exists); r with a reason denies it (no
// file, the model gets the reason); Esc in Claude's terminal first withdraws the popup within
// a second and writes nothing.
func TestRealClaudePermission(t *testing.T) {
	v, api := startRealClaude(t, nil)
	count := func() int {
		var n int
		json.Unmarshal(v.eval("claude_ide_bridge#State().permissions"), &n)
		return n
	}
	turn := func(file, done, prompt string) {
		api.Push(fakeapi.Tool("Bash", map[string]any{"command": "touch " + file, "description": "make a file"}), fakeapi.Text(done))
		v.typeText(prompt)
		time.Sleep(300 * time.Millisecond) // not an assertion: the TUI takes a burst ending in Enter as a paste
		v.keys("Enter")
		if !harness.Poll(60*time.Second, func() bool { return count() == 1 }) {
			t.Fatalf("no permission question in Vim; screen:\n%s", v.screen())
		}
		// Vim draws the popup after the state counts it: at load 22 the screen was read first.
		if !poll(func() bool { return strings.Contains(v.screen(), "command: touch "+file) }) {
			t.Fatalf("the popup does not show the command; screen:\n%s", v.screen())
		}
	}
	// From Claude's terminal, as the help says: CTRL-W :ClaudeCodePermissions.
	answer := func(keys ...string) {
		v.keys("C-w")
		v.answer()
		v.keys(keys...)
	}
	finish := func(done string) {
		if !harness.Poll(60*time.Second, func() bool { return strings.Contains(v.screen(), done) }) {
			t.Fatalf("the turn did not end; screen:\n%s", v.screen())
		}
	}

	a := filepath.Join(v.ws, "allowed.txt")
	turn(a, "TURN A DONE", "make a file")
	answer("y")
	finish("TURN A DONE")
	if _, err := os.Stat(a); err != nil {
		t.Fatalf("allowed in Vim, the command did not run: %v", err)
	}

	b := filepath.Join(v.ws, "denied.txt")
	turn(b, "TURN B DONE", "make another")
	answer("r")
	if !harness.Poll(5*time.Second, func() bool { return strings.Contains(v.screen(), "Reason (Claude gets it):") }) {
		t.Fatalf("no reason asked; screen:\n%s", v.screen())
	}
	v.typeText("REASON-9 not here")
	v.keys("Enter")
	finish("TURN B DONE")
	if _, err := os.Stat(b); err == nil {
		t.Fatal("denied in Vim, the command ran")
	}
	reqs := api.MainRequests()
	if tr := reqs[len(reqs)-1].ToolResults(); len(tr) != 1 || !tr[0].IsError || !strings.Contains(tr[0].Content, "REASON-9 not here") {
		t.Fatalf("the model got %+v, want the reason as the tool's error", tr)
	}

	c := filepath.Join(v.ws, "terminal.txt")
	turn(c, "TURN C DONE", "and another")
	if !harness.Poll(30*time.Second, func() bool { return strings.Contains(v.screen(), "Do you want to proceed?") }) {
		t.Fatalf("no question in Claude's terminal; screen:\n%s", v.screen())
	}
	v.keys("Escape") // to Claude's terminal: the popup takes no key
	// Timed from the CLI's menu closing (its answer), as test/e2e does.
	if !harness.Poll(30*time.Second, func() bool { return !strings.Contains(v.screen(), "Do you want to proceed?") }) {
		t.Fatalf("Esc did not close Claude's question; screen:\n%s", v.screen())
	}
	harness.Withdrawn(t, "Vim", func() bool { return count() == 0 }, c)
	v.waitEval("[]", "popup_list()")
}
