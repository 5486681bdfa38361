package discovery

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// A SIGKILLed bridge leaves its lock behind (its pid may even live on: the lock carries the
// editor's pid). SweepOwn, run by the next bridge at start, removes exactly the stale locks that
// claude-ide-bridge wrote, never a live one and never another IDE's.
func TestSweepOwn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dead := deadPID(t)
	live := os.Getpid()
	closed := closedPorts(t, 3)
	open := listening(t)
	type lockFile struct {
		name   string
		port   int
		lock   Lock
		remove bool
	}
	files := []lockFile{
		{"ours, pid dead", closed[0], Lock{PID: dead, Bridge: BridgeMarker}, true},
		{"ours, pid alive, port closed (bridge killed, editor alive)", closed[1], Lock{PID: live, Bridge: BridgeMarker}, true},
		{"ours, alive and answering", open, Lock{PID: live, Bridge: BridgeMarker}, false},
		{"another IDE, pid dead", closed[2], Lock{PID: dead}, false},
	}
	for _, f := range files {
		f.lock.AuthToken = "t"
		if _, err := WriteLock(dir, f.port, f.lock); err != nil {
			t.Fatal(err)
		}
	}
	junk := filepath.Join(dir, "junk.lock")
	if err := os.WriteFile(junk, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}

	removed, err := SweepOwn([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		path := filepath.Join(dir, strconv.Itoa(f.port)+".lock")
		_, statErr := os.Stat(path)
		if gone := statErr != nil; gone != f.remove || slices.Contains(removed, path) != f.remove {
			t.Errorf("%s: removed=%v (reported %v), want %v", f.name, gone, slices.Contains(removed, path), f.remove)
		}
	}
	if _, err := os.Stat(junk); err != nil {
		t.Errorf("an unreadable lock is not provably ours, yet it was removed: %v", err)
	}
}
