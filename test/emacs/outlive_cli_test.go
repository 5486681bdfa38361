//go:build unix

package emacstest

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// Issue 39 item 2 with the real CLI: "Emacs quits while an outside Claude has a pending diff;
// Emacs restarted in the workspace shows it again; `locks` shows no stale lock at any point."
// The CLI runs in a pty of its own (another terminal), found through CLAUDE_CODE_SSE_PORT; its
// Edit is a pending proposal in Emacs when C-x C-c quits Emacs. The bridge stays (its lock live,
// naming it), the next Emacs shows the proposal, C-c C-c there accepts it and the CLI writes it.
func TestRealClaudeOutlivesEmacs(t *testing.T) {
	t.Parallel()
	cw := harness.NewCLIWorld(t, "the Emacs test with the real Claude Code CLI")
	bin, api, home := cw.Bin, cw.API, cw.Home
	w := &world{proj: cw.Proj, cfg: cw.Cfg}
	w.stopBridges(t)
	path := filepath.Join(w.proj, "hello.txt")
	os.WriteFile(path, []byte("hello world\n"), 0o644)
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + w.cfg}
	w.e = startEmacs(t, w.proj, env, "")
	_, pid := w.lockPID(t)
	lock, _ := w.lockPID(t)
	port := strings.TrimSuffix(filepath.Base(lock), ".lock")

	cli := exec.Command(bin, "--permission-mode", "default")
	cli.Dir = w.proj
	cli.Env = append(append(os.Environ(), env...), append(harness.OfflineEnv(api.URL),
		"TERM=xterm-256color", "CLAUDE_CODE_SSE_PORT="+port, "no_proxy=127.0.0.1,localhost,::1")...)
	ptm, err := pty.StartWithSize(cli, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	screen := &testbin.Buffer{} // the pty's output, read while it is written
	copied := make(chan struct{})
	go func() { io.Copy(screen, ptm); close(copied) }()
	t.Cleanup(func() { cli.Process.Kill(); cli.Wait(); ptm.Close(); <-copied })
	if !harness.Poll(90*time.Second, func() bool {
		c, _ := w.e.try(connectedExpr)
		return c == "1" && strings.Contains(screen.String(), "shortcuts") // "? for shortcuts", drawn with cursor moves between the words
	}) {
		t.Fatalf("the CLI did not connect and get ready; its output:\n%q", screen.String())
	}
	api.Push(fakeapi.Edit(path, "world", "there", "EDIT ACCEPTED")...)
	ptm.WriteString("edit hello")
	time.Sleep(300 * time.Millisecond) // not an assertion: the TUI takes a burst ending in Enter as a paste
	ptm.WriteString("\r")
	api.MustMain(t, 60*time.Second, 1, nil)
	w.waitDiffs(t, tabPattern(t, w)+"=pending")

	live := func(when string) {
		t.Helper()
		locks, err := discovery.ListLocks([]string{filepath.Join(w.cfg, "ide")})
		if err != nil || len(locks) != 1 || locks[0].Live() != nil {
			t.Fatalf("%s: the lock is not live: %v %+v", when, err, locks)
		}
	}
	live("before Emacs quits")
	bridgePID := w.bridgePID(t)
	w.quitEmacs(t)
	if err := syscall.Kill(bridgePID, 0); err != nil {
		t.Fatalf("the bridge did not outlive Emacs: %v", err)
	}
	if _, lpid := w.lockPID(t); lpid != bridgePID || lpid == pid {
		t.Fatalf("lock names %d, want the bridge's %d", lpid, bridgePID)
	}
	live("after Emacs quit")
	if got := harness.FileText(path); got != "hello world\n" {
		t.Fatalf("file changed while no editor was there: %q", got)
	}

	w.e = startEmacs(t, w.proj, env, "")
	w.waitDiffs(t, tabPattern(t, w)+"=pending")
	live("with the next Emacs")
	w.e.eval(t, `(progn (select-window (get-buffer-window (claude-ide-bridge--diff-proposal (car (hash-table-values claude-ide-bridge--diffs))))) nil)`)
	w.e.keys(t, "C-c", "C-c")
	if !harness.Poll(60*time.Second, func() bool { return harness.FileText(path) == "hello there\n" }) {
		t.Fatalf("the CLI did not write the accepted text; file %q", harness.FileText(path))
	}
	// The turn goes on: the CLI asks the model again with the Edit's result (the third request).
	api.MustMain(t, 60*time.Second, 3, nil)
}

// tabPattern is the tab name of the one diff Emacs shows (the CLI chooses it).
func tabPattern(t *testing.T, w *world) string {
	t.Helper()
	var tab string
	if !harness.Poll(60*time.Second, func() bool {
		out, err := w.e.try(`(length (claude-ide-bridge-diffs))`)
		return err == nil && out == "1"
	}) {
		t.Fatalf("no diff shown")
	}
	w.e.value(t, &tab, `(car (car (claude-ide-bridge-diffs)))`)
	return tab
}
