package stdio_test

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"time"
)

// Issue 15 item 9: when Neovim quits, the Claude clients disconnect and Neovim sends SIGTERM; the
// bridge wrote clientDisconnected to the closed stdout pipe and Go's default SIGPIPE handling
// killed it before it removed its lock (seen 5 of 8 times). Here the editor's end of stdout is
// closed first, then the client leaves (a write to the dead pipe), then SIGTERM: the bridge must
// exit 0 and remove its lock.
func TestQuitWithStdoutGone(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line")
	r := s.initialize(t, nil)
	c := claude(t, r)
	s.stdoutR.Close() // the editor stopped reading
	c.Close()
	// The bridge writes clientDisconnected to the dead pipe at once; a second is plenty for it
	// to try (the test does not depend on the timing: a bridge still alive is then signalled).
	select {
	case <-s.exited:
		t.Fatalf("the bridge died when its stdout reader went away: %v; lock %s", s.waitErr, r.LockPath)
	case <-time.After(time.Second):
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.waitExit(t)
	if code := s.exitCode(); code != 0 {
		t.Errorf("exit status %d (%v), want 0", code, s.waitErr)
	}
	if _, err := os.Stat(r.LockPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left behind: %v", err)
	}
}
