//go:build unix

package emacstest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// lockPID reads the pid the workspace's one lock file names (0: none or unreadable).
func (w *world) lockPID(t *testing.T) (string, int) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(w.cfg, "ide", "*.lock"))
	if len(names) != 1 {
		return "", 0
	}
	var l struct {
		PID int `json:"pid"`
	}
	data, _ := os.ReadFile(names[0])
	json.Unmarshal(data, &l)
	return names[0], l.PID
}

// stopBridges ends, after the test, a bridge that outlived its Emacs (SIGTERM: a real stop).
func (w *world) stopBridges(t *testing.T) {
	t.Cleanup(func() {
		if _, pid := w.lockPID(t); pid > 0 {
			syscall.Kill(pid, syscall.SIGTERM)
		}
		harness.Poll(testbin.Bound, func() bool { names, _ := filepath.Glob(filepath.Join(w.cfg, "ide", "*.lock")); return len(names) == 0 })
	})
}

// Issue 39 item 2: "with a Claude in another terminal, C-x C-c sends EOF, the bridge logs that
// it stays, and Emacs deletes the process 2 s later: lock and socket stay behind (`locks` says
// stale, `doctor` FAIL), a pending diff lost". Now the bridge is let go: it stays alive past
// those 2 s, its lock names it and is live, the pending diff is not answered, and an Emacs
// started again in the project attaches and shows the diff again.
func TestBridgeStaysForOutsideClaude(t *testing.T) {
	t.Parallel()
	w, ans := pendingWorld(t)
	pid := w.bridgePID(t)
	w.quitEmacs(t)
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the bridge (pid %d) did not outlive Emacs for the Claude outside it: %v", pid, err)
	}
	if lock, lpid := w.lockPID(t); lpid != pid {
		t.Fatalf("lock %q names pid %d, want the staying bridge's %d", lock, lpid, pid)
	}
	// What `locks` and `doctor` judge by: the pid alive, the port held by this user.
	if locks, err := discovery.ListLocks([]string{filepath.Join(w.cfg, "ide")}); err != nil || len(locks) != 1 || locks[0].Live() != nil {
		t.Fatalf("the lock is not live: %v %+v", err, locks)
	}
	select {
	case a := <-ans:
		t.Fatalf("the pending diff was answered when Emacs quit: %v %+v", a.err, a.r)
	default:
	}

	// The next Emacs in the project attaches and shows the diff again.
	w.e = startEmacs(t, w.proj, []string{"CLAUDE_CONFIG_DIR=" + w.cfg, "HOME=" + filepath.Join(filepath.Dir(w.cfg), "home")}, "")
	w.waitDiffs(t, tabA+"=pending")
	w.e.eval(t, `(with-current-buffer (claude-ide-bridge--diff-proposal (car (hash-table-values claude-ide-bridge--diffs))) (claude-ide-bridge-reject))`)
	wantTexts(t, ans, "DIFF_REJECTED", tabA)
}

// Turning the mode off stops the bridge for real, also with a Claude outside Emacs connected:
// the lock goes and the pending diff is settled as rejected (the old code closed stdin, the
// bridge stayed, and Emacs killed it 2 s later: the lock stayed behind).
func TestModeOffStopsTheBridge(t *testing.T) {
	t.Parallel()
	w, ans := pendingWorld(t)
	lock, _ := w.lockPID(t)
	pid := w.bridgePID(t)
	w.e.keys(t, "M-x", "claude-ide-bridge-mode", "Enter")
	wantTexts(t, ans, "DIFF_REJECTED", tabA)
	if !harness.Poll(testbin.Bound, func() bool { _, err := os.Stat(lock); return os.IsNotExist(err) && syscall.Kill(pid, 0) != nil }) {
		t.Fatalf("after the mode went off the lock %s or the bridge (pid %d) is still there", lock, pid)
	}
}

// "Emacs also never removes a killed bridge's lock that names its pid (Neovim and Vim do)."
func TestKilledBridgeLockRemoved(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", false)
	lock, lpid := w.lockPID(t)
	var emacsPID int
	w.e.value(t, &emacsPID, `(emacs-pid)`)
	pid := w.bridgePID(t)
	if lpid != emacsPID {
		t.Fatalf("lock names pid %d, want Emacs's %d", lpid, emacsPID)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	if !harness.Poll(testbin.Bound, func() bool { _, err := os.Stat(lock); return os.IsNotExist(err) }) {
		t.Fatalf("the killed bridge's lock %s, naming Emacs, is still there", lock)
	}
}

// bridgePID is the pid of the bridge Emacs started.
func (w *world) bridgePID(t *testing.T) int {
	t.Helper()
	var pid int
	w.e.value(t, &pid, `(process-id (jsonrpc--process claude-ide-bridge--conn))`)
	return pid
}

// quitEmacs quits Emacs with C-x C-c and waits past the 2 s after which Emacs deleted the
// bridge's process (issue 39 item 2).
func (w *world) quitEmacs(t *testing.T) {
	t.Helper()
	w.e.keys(t, "C-x", "C-c")
	if !harness.Poll(testbin.Bound, func() bool { return exec.Command(w.e.tmux, "-S", w.e.tsock, "has-session").Run() != nil }) {
		t.Fatalf("Emacs did not quit:\n%s", w.e.screen(t))
	}
	time.Sleep(3 * time.Second) // past the 2 s after which Emacs deleted the process
}

// pendingWorld is a world (its bridges stopped at the test's end) with a pending diff of a.txt.
func pendingWorld(t *testing.T) (*world, chan toolAnswer) {
	t.Helper()
	w := newWorld(t, "", true)
	w.stopBridges(t)
	path := w.file(t, "a.txt", "one\n")
	ans := w.openDiff(t, path, "two\n", tabA)
	w.waitDiffs(t, tabA+"=pending")
	return w, ans
}
