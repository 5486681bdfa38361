package stdio_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// A bridge killed with SIGKILL cannot remove its lock file; the next bridge to start removes
// it (discovery.SweepOwn from bridge.Start), so the CLI never finds the dead entry. The editor
// (this test process) is still alive, so the lock's pid alone does not reveal the death: its
// port does.
func TestSIGKILLThenNextStartCleansLock(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	ws, _ := filepath.EvalSymlinks(t.TempDir())

	first := startRaw(t, cfg)
	a := first.initialize(t, ws, os.Getpid())
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-first.exited:
	case <-time.After(testbin.Bound):
		t.Fatal("SIGKILL did not end the bridge")
	}
	locks, err := discovery.ListLocks([]string{filepath.Join(cfg, "ide")})
	if err != nil || len(locks) != 1 || locks[0].Path != a.Result.LockPath || !locks[0].Stale() {
		t.Fatalf("after SIGKILL: %+v, %v; want the dead bridge's lock, stale", locks, err)
	}

	second := startRaw(t, cfg)
	b := second.initialize(t, ws, os.Getpid())
	if b.Result.Port == a.Result.Port {
		t.Fatalf("both bridges got port %d; cannot tell the locks apart", b.Result.Port)
	}
	if _, err := os.Stat(a.Result.LockPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the killed bridge's lock %s is still there after the next start (%v)", a.Result.LockPath, err)
	}
	if _, err := os.Stat(b.Result.LockPath); err != nil {
		t.Fatalf("the new bridge's lock: %v", err)
	}
}
