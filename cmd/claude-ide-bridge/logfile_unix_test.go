//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Issue 15 item 8: --trace/--log-file kept an existing file's 0644 mode and followed symlinks.
func TestOpenLogFile(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.log")
	os.WriteFile(existing, []byte("before\n"), 0o644)
	f, err := openLogFile(existing)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("after\n")
	f.Close()
	fi, _ := os.Stat(existing)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("existing log file mode %v, want 0600", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(existing); string(b) != "before\nafter\n" {
		t.Fatalf("log file holds %q, want appended", b)
	}
	fresh := filepath.Join(dir, "new.log")
	f, err = openLogFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o600 {
		t.Fatalf("new log file mode %v", fi.Mode().Perm())
	}
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	link := filepath.Join(dir, "link.log")
	os.Symlink(victim, link)
	if f, err := openLogFile(link); err == nil {
		f.Close()
		t.Fatal("a symlinked log file was opened")
	}
	if fi, _ := os.Stat(victim); fi.Mode().Perm() != 0o644 {
		t.Fatal("the symlink's target was changed")
	}
	if f, err := openLogFile("/dev/null"); err == nil {
		f.Close()
		t.Fatal("a device was opened as a log file")
	}
}
