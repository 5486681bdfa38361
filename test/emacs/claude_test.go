package emacstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// The whole way with the real Claude Code CLI and the fake model API: M-x
// claude-ide-bridge-claude runs claude in Emacs's terminal (term, as in an Emacs without eat or
// vterm) with the bridge's environment and --permission-mode default; the model's Edit becomes
// an Ediff proposal, C-c C-c accepts it, the CLI (not Emacs) writes the file, and the file's
// buffer shows the new text.
func TestRealClaudeEditAccepted(t *testing.T) {
	t.Parallel()
	rc := startRealClaude(t)
	e, api, screen, path := rc.w.e, rc.api, rc.screen, rc.path
	api.Push(fakeapi.Edit(path, "world", "there", "EDIT ACCEPTED")...)
	rc.prompt("edit hello")
	api.MustMain(t, 60*time.Second, 1, screen)
	if !harness.Poll(60*time.Second, func() bool { n, _ := e.try(`(length (claude-ide-bridge-diffs))`); return n == "1" }) {
		t.Fatalf("no diff shown; screen:\n%s", screen())
	}
	if got := harness.FileText(path); got != "hello world\n" {
		t.Fatalf("file changed before the accept: %q", got)
	}
	// The user accepts in the proposal's window.
	e.eval(t, `(progn (select-window (get-buffer-window (claude-ide-bridge--diff-proposal (car (hash-table-values claude-ide-bridge--diffs))))) nil)`)
	e.keys(t, "C-c", "C-c")
	if !harness.Poll(60*time.Second, func() bool { return harness.FileText(path) == "hello there\n" }) {
		t.Fatalf("the CLI did not write the accepted text; file %q; screen:\n%s", harness.FileText(path), screen())
	}
	if !harness.Poll(60*time.Second, func() bool { return strings.Contains(screen(), "EDIT ACCEPTED") }) {
		t.Fatalf("the turn did not finish; screen:\n%s", screen())
	}
	e.waitEval(t, "0", `(length (claude-ide-bridge-diffs))`)
	if !harness.Poll(testbin.Bound, func() bool {
		return e.str(t, `(with-current-buffer (get-file-buffer `+lispQuote(path)+`) (buffer-string))`) == "hello there\n"
	}) {
		t.Fatal("hello.txt's buffer does not show the CLI's write")
	}
}

// realClaude is an Emacs whose M-x claude-ide-bridge-claude runs the real CLI (in term) against
// the fake model API, connected and ready, with hello.txt ("hello world\n") shown.
type realClaude struct {
	w      *world
	api    *fakeapi.Server
	path   string
	screen func() string // Claude's terminal buffer
	send   func(string)  // to claude's process
}

// prompt types text into Claude and submits it.
func (rc *realClaude) prompt(s string) {
	rc.send(s)
	time.Sleep(300 * time.Millisecond) // not an assertion: the TUI takes a burst ending in Enter as a paste
	rc.send("\r")
}

func startRealClaude(t *testing.T) *realClaude {
	t.Helper()
	cw := harness.NewCLIWorld(t, "the Emacs test with the real Claude Code CLI")
	bin, api, proj, cfg := cw.Bin, cw.API, cw.Proj, cw.Cfg
	path := filepath.Join(proj, "hello.txt")
	os.WriteFile(path, []byte("hello world\n"), 0o644)
	e := startEmacs(t, proj, cw.Env(), `(setq claude-ide-bridge-claude-program `+lispQuote(bin)+` claude-ide-bridge-terminal 'term)`+noShorterHint)
	w := &world{proj: proj, cfg: cfg, e: e}
	t.Cleanup(func() {
		// claude first, so it does not outlive the test.
		e.try(`(let ((p (get-buffer-process (cdr (assoc "claude" claude-ide-bridge--terminals))))) (when p (delete-process p)))`)
	})
	w.visit(t, path)
	e.eval(t, `(progn (with-current-buffer (window-buffer (selected-window)) (claude-ide-bridge-claude)) nil)`)
	screen := func() string {
		var s string
		e.value(t, &s, `(if (buffer-live-p (cdr (assoc "claude" claude-ide-bridge--terminals))) (with-current-buffer (cdr (assoc "claude" claude-ide-bridge--terminals)) (buffer-substring-no-properties (point-min) (point-max))) "")`)
		return s
	}
	// Facts: "With no network, expect up to ~20 s before it connects".
	if !harness.Poll(90*time.Second, func() bool {
		c, _ := e.try(connectedExpr)
		return c == "1" && strings.Contains(screen(), "for shortcuts")
	}) {
		t.Fatalf("the CLI did not connect and get ready; screen:\n%s", screen())
	}
	// The command line had the permission mode (the CLI's auto mode would write with no diff).
	if cmd := e.eval(t, `(process-command (get-buffer-process (cdr (assoc "claude" claude-ide-bridge--terminals))))`); !strings.Contains(cmd, `"--permission-mode" "default"`) {
		t.Fatalf("claude ran as %s", cmd)
	}
	send := func(s string) {
		e.eval(t, `(process-send-string (get-buffer-process (cdr (assoc "claude" claude-ide-bridge--terminals))) `+lispQuote(s)+`)`)
	}
	return &realClaude{w: w, api: api, path: path, screen: screen, send: send}
}
