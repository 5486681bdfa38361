//go:build unix

package permmode

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"
)

// A project's .claude/settings.json comes from the repository (docs/security.md: a cloned
// repository is an attacker). A link to a FIFO (or /dev/zero) is refused as a problem, not
// read: on main the read blocked forever, and :ClaudeCode, doctor and serve with it.
func TestSettingsThatAreNotFilesAreRefused(t *testing.T) {
	e := env(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	if err := os.Symlink(fifo, filepath.Join(e.Cwd, ".claude", "settings.json")); err != nil {
		t.Fatal(err)
	}
	done := make(chan Decision, 1)
	go func() { done <- Decide(nil, e) }()
	select {
	case d := <-done:
		if !reflect.DeepEqual(d.Add, addDefault) || len(d.Problems) != 1 {
			t.Errorf("Decide = %+v, want the default added and one problem", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Decide did not return: it is reading the FIFO") // a hang, not a timing claim
	}
}
