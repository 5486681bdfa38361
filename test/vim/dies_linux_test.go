package vimtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A bridge that dies (SIGKILL: no cleanup of its own) closes the diff views, is reported with
// its status, and its lock file, which names Vim's live pid, is removed: Claude would go on
// trusting it, and another local user could take over the freed port (docs/security.md).
func TestBridgeDies(t *testing.T) {
	v := startVim(t)
	c := v.claude()
	path := v.file("a.txt", "old\n")
	openDiff(t, c, path, "new\n", tabA)
	v.waitDiffs(tabA + "=pending")
	s := v.state()
	var lock struct{ PID int }
	b, _ := os.ReadFile(s.LockPath)
	json.Unmarshal(b, &lock)
	pid := childNamed(t, lock.PID, "claude-ide-brid")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	v.waitDiffs()
	v.waitEval("false", "claude_ide_bridge#State().running")
	if n := v.tabpages(); n != 1 {
		t.Fatalf("%d tab pages after the bridge died, want 1", n)
	}
	if !strings.Contains(v.messages(), "the bridge exited with status") {
		t.Errorf("no message about the bridge's end:\n%s", v.messages())
	}
	if _, err := os.Stat(s.LockPath); !os.IsNotExist(err) {
		t.Errorf("the dead bridge's lock file %s is still there (%v)", s.LockPath, err)
	}
}

// childNamed is the pid of parent's child process whose name (comm, 15 bytes) is name.
func childNamed(t *testing.T, parent int, name string) int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < 0 {
			continue
		}
		var pid, ppid int
		var state string
		fmt.Sscan(s[:open], &pid)
		fmt.Sscan(s[close+1:], &state, &ppid)
		if ppid == parent && s[open+1:close] == name {
			return pid
		}
	}
	t.Fatalf("no child %q of %d", name, parent)
	return 0
}
