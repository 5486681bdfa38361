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
	pid := w.bridgePID(t)
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

// Issue 39 item 10: Emacs's entry in Claude's /ide list (the lock's ideName) had no folder, where
// Neovim's and Vim's read "Neovim (proj)". Now "Emacs (<project folder name>)", the folder the
// lock names.
func TestLockNamesTheProject(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", false)
	var names []string
	harness.Poll(10*time.Second, func() bool { names, _ = filepath.Glob(filepath.Join(w.cfg, "ide", "*.lock")); return len(names) == 1 })
	if len(names) != 1 {
		t.Fatalf("lock files %v", names)
	}
	data, _ := os.ReadFile(names[0])
	var lock struct {
		IDEName          string   `json:"ideName"`
		WorkspaceFolders []string `json:"workspaceFolders"`
	}
	json.Unmarshal(data, &lock)
	if lock.IDEName != "Emacs (proj)" || len(lock.WorkspaceFolders) != 1 || lock.WorkspaceFolders[0] != w.proj {
		t.Errorf("lock: ideName %q, folders %q; want \"Emacs (proj)\", [%s]", lock.IDEName, lock.WorkspaceFolders, w.proj)
	}
}
