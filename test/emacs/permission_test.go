package emacstest

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/testbin"
)

// hook runs the bridge's PermissionRequest hook as the CLI does and returns what it prints.
func (w *world) hook(t *testing.T, input map[string]any) <-chan string {
	t.Helper()
	var names []string
	poll(testbin.Bound, func() bool { names, _ = filepath.Glob(filepath.Join(w.cfg, "ide", "*.lock")); return len(names) == 1 })
	if len(names) != 1 {
		t.Fatalf("lock files %v", names)
	}
	port, _ := strconv.Atoi(strings.TrimSuffix(filepath.Base(names[0]), ".lock"))
	b, _ := json.Marshal(input)
	cmd := exec.Command(bridgeBin, "hook", "--port", strconv.Itoa(port))
	cmd.Env = []string{"CLAUDE_CONFIG_DIR=" + w.cfg, "HOME=" + filepath.Dir(w.cfg)}
	cmd.Stdin = bytes.NewReader(b)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 1)
	go func() { cmd.Wait(); ch <- out.String() }()
	return ch
}

func bash(session, command string) map[string]any {
	return map[string]any{"hook_event_name": "PermissionRequest", "session_id": session, "tool_name": "Bash",
		"tool_input": map[string]any{"command": command}, "permission_suggestions": []any{map[string]any{"type": "addRules"}}}
}

func sessionEnd(session string) map[string]any {
	return map[string]any{"hook_event_name": "SessionEnd", "session_id": session}
}

const messages = `(with-current-buffer (messages-buffer) (buffer-string))`

// answer runs M-x claude-ide-bridge-permissions with real keys and types keys into its
// question.
func (w *world) answer(t *testing.T, keys ...string) {
	t.Helper()
	w.e.keys(t, "M-x")
	w.e.keys(t, "claude-ide-bridge-permissions", "Enter")
	if !poll(testbin.Bound, func() bool {
		s := w.e.screen(t)
		return strings.Contains(s, "pending) (") && strings.Contains(s, "later")
	}) {
		t.Fatalf("no question asked; screen:\n%s", w.e.screen(t))
	}
	w.e.keys(t, keys...)
}

// Issue 37 in Emacs: Claude's permission question is announced in the echo area (escaped)
// without taking the window or the minibuffer; M-x claude-ide-bridge-permissions shows it and
// asks: y allows, r denies with the reason typed; a withdrawn question is gone and gets no
// answer, also when it is withdrawn while the user types the reason.
func TestPermissionQuestion(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", false)
	w.visit(t, w.file(t, "a.txt", "text\n"))
	out := w.hook(t, bash("session-abcdef", "touch x\x1b[2J; echo"))
	w.e.waitEval(t, "1", `(length claude-ide-bridge--questions)`)
	if got := w.e.eval(t, `(list (buffer-name (window-buffer (selected-window))) (minibufferp (window-buffer (selected-window))) (active-minibuffer-window))`); got != `("a.txt" nil nil)` {
		t.Fatalf("the question took the window or the minibuffer: %s", got)
	}
	msgs := w.e.str(t, messages)
	if !strings.Contains(msgs, `asks to use Bash: command: touch x\x1b[2J; echo (M-x claude-ide-bridge-permissions answers)`) || strings.Contains(msgs, "\x1b") {
		t.Fatalf("*Messages*:\n%q", msgs)
	}
	w.answer(t, "y")
	if got := <-out; !strings.Contains(got, `"behavior":"allow"`) || strings.Contains(got, "updatedPermissions") {
		t.Fatalf("the hook printed %q", got)
	}
	if got := w.e.str(t, `(with-current-buffer "*Claude permission*" (buffer-string))`); !strings.Contains(got, `command: touch x\x1b[2J; echo`) || strings.Contains(got, "\x1b") {
		t.Fatalf("the question showed %q", got)
	}
	w.e.waitEval(t, "0", `(length claude-ide-bridge--questions)`)

	out = w.hook(t, bash("session-2", "make"))
	w.e.waitEval(t, "1", `(length claude-ide-bridge--questions)`)
	w.answer(t, "r")
	w.e.keys(t, "use make test", "Enter")
	if got := <-out; !strings.Contains(got, `"behavior":"deny"`) || !strings.Contains(got, `"message":"use make test"`) {
		t.Fatalf("the hook printed %q", got)
	}

	// Withdrawn (the session ended): gone, the hook prints nothing.
	out = w.hook(t, bash("session-3", "ls"))
	w.e.waitEval(t, "1", `(length claude-ide-bridge--questions)`)
	<-w.hook(t, sessionEnd("session-3"))
	w.e.waitEval(t, "0", `(length claude-ide-bridge--questions)`)
	if got := <-out; got != "" {
		t.Fatalf("a withdrawn question's hook printed %q", got)
	}

	// Withdrawn while the user types the reason: the reason is sent nowhere.
	out = w.hook(t, bash("session-4", "rm -rf build"))
	w.e.waitEval(t, "1", `(length claude-ide-bridge--questions)`)
	w.answer(t, "r")
	w.e.keys(t, "too late")
	w.e.waitEval(t, "t", `(and (active-minibuffer-window) t)`)
	<-w.hook(t, sessionEnd("session-4"))
	w.e.waitEval(t, "0", `(length claude-ide-bridge--questions)`)
	if got := <-out; got != "" {
		t.Fatalf("a withdrawn question's hook printed %q", got)
	}
	w.e.keys(t, "Enter")
	w.e.waitEval(t, "nil", `(and (active-minibuffer-window) t)`)
	if !poll(testbin.Bound, func() bool {
		return strings.Contains(w.e.str(t, messages), "that question was withdrawn; nothing sent")
	}) {
		t.Fatalf("*Messages*:\n%s", w.e.str(t, messages))
	}
	if msgs := w.e.str(t, messages); strings.Contains(msgs, "not answered here") {
		t.Fatalf("a decision on the withdrawn question was sent:\n%s", msgs)
	}
}

// claude-ide-bridge-permissions nil: the capability is not declared, the terminal alone asks.
func TestPermissionsOff(t *testing.T) {
	t.Parallel()
	w := newWorld(t, `(setq claude-ide-bridge-permissions nil)`, false)
	if got := <-w.hook(t, bash("s", "ls")); got != "" {
		t.Fatalf("the hook printed %q", got)
	}
	if got := w.e.eval(t, `(length claude-ide-bridge--questions)`); got != "0" {
		t.Fatalf("%s questions kept", got)
	}
	if msgs := w.e.str(t, messages); strings.Contains(msgs, "asks to use") {
		t.Fatalf("*Messages*:\n%s", msgs)
	}
}
