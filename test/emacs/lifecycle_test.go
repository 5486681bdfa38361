//go:build unix

package emacstest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// Issue 30: the mode "stops it with Emacs". C-x C-c in a real Emacs: the bridge closes, removes
// its lock file and exits, with no question asked about its process.
func TestBridgeEndsWithEmacs(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", false)
	names, _ := filepath.Glob(filepath.Join(w.cfg, "ide", "*.lock"))
	if len(names) != 1 {
		t.Fatalf("lock files %v", names)
	}
	var pid int
	w.e.value(t, &pid, `(process-id (jsonrpc--process claude-ide-bridge--conn))`)
	w.e.keys(t, "C-x", "C-c")
	gone := func() bool {
		_, err := os.Stat(names[0])
		return os.IsNotExist(err) && syscall.Kill(pid, 0) != nil
	}
	if !harness.Poll(10*time.Second, gone) {
		data, _ := os.ReadFile(names[0])
		var lock map[string]any
		json.Unmarshal(data, &lock)
		t.Fatalf("after C-x C-c the lock file (pid %v) or the bridge (pid %d) is still there; screen:\n%s", lock["pid"], pid, w.e.screen(t))
	}
}
