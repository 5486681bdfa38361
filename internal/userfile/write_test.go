//go:build unix

package userfile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// layout is a workspace and, beside it, an outside folder holding a file (the secret).
func layout(t *testing.T) (ws, outside, secret string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret = filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("outside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return ws, outside, secret
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A file swapped for a link, a folder swapped for a link, a link to an inside file: each is
// refused with ErrLink naming the link, and nothing outside is written or removed.
func TestWriteInFollowsNoLink(t *testing.T) {
	ws, outside, secret := layout(t)
	folders := []string{ws}
	os.WriteFile(filepath.Join(ws, "real.txt"), []byte("real\n"), 0o644)
	os.Symlink(secret, filepath.Join(ws, "a.txt"))
	os.Symlink(outside, filepath.Join(ws, "sub"))
	os.Symlink(filepath.Join(ws, "real.txt"), filepath.Join(ws, "inside-link.txt"))
	os.MkdirAll(filepath.Join(ws, "d", "e"), 0o755)
	os.Symlink(outside, filepath.Join(ws, "d", "e", "deep"))
	for _, tc := range []struct{ path, link string }{
		{filepath.Join(ws, "a.txt"), filepath.Join(ws, "a.txt")},
		{filepath.Join(ws, "sub", "secret.txt"), filepath.Join(ws, "sub")},
		{filepath.Join(ws, "sub", "new.txt"), filepath.Join(ws, "sub")},
		{filepath.Join(ws, "inside-link.txt"), filepath.Join(ws, "inside-link.txt")},
		{filepath.Join(ws, "d", "e", "deep", "secret.txt"), filepath.Join(ws, "d", "e", "deep")},
	} {
		err := WriteIn(folders, tc.path, []byte("snapshot\n"), 0o644)
		if !errors.Is(err, ErrLink) || !strings.Contains(err.Error(), tc.link+" is a symbolic link") {
			t.Errorf("WriteIn %s: %v, want ErrLink naming %s", tc.path, err, tc.link)
		}
		if err := RemoveIn(folders, tc.path); !errors.Is(err, ErrLink) {
			t.Errorf("RemoveIn %s: %v, want ErrLink", tc.path, err)
		}
	}
	if got := mustRead(t, secret); got != "outside\n" {
		t.Errorf("the outside file was written: %q", got)
	}
	if got := mustRead(t, filepath.Join(ws, "real.txt")); got != "real\n" {
		t.Errorf("the link's inside target was written: %q", got)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("outside holds %d entries, want the secret alone", len(entries))
	}
	if fi, err := os.Lstat(filepath.Join(ws, "a.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the refused link was replaced: %v %v", fi, err)
	}
}

// Outside every folder (absolute, "..", the folder itself) is refused; the folder may be named
// through a link (the user's choice) and the path given by either spelling.
func TestWriteInOnlyInsideFolders(t *testing.T) {
	ws, outside, secret := layout(t)
	for _, p := range []string{secret, filepath.Join(ws, "..", "outside", "secret.txt"), ws, "relative.txt"} {
		if err := WriteIn([]string{ws}, p, []byte("x"), 0o644); !errors.Is(err, ErrOutside) {
			t.Errorf("WriteIn %s: %v, want ErrOutside", p, err)
		}
	}
	if got := mustRead(t, secret); got != "outside\n" {
		t.Errorf("the outside file was written: %q", got)
	}
	alias := filepath.Join(filepath.Dir(outside), "alias")
	os.Symlink(ws, alias)
	for _, p := range []string{filepath.Join(alias, "b.txt"), filepath.Join(ws, "c.txt")} {
		if err := WriteIn([]string{alias}, p, []byte("x\n"), 0o644); err != nil {
			t.Errorf("WriteIn %s in the folder named through a link: %v", p, err)
		}
	}
	if mustRead(t, filepath.Join(ws, "b.txt")) != "x\n" || mustRead(t, filepath.Join(ws, "c.txt")) != "x\n" {
		t.Error("not written")
	}
}

// The mode given is the mode the file gets, whatever it had and whatever the umask; a missing
// file is created, a missing one removed is no error; no temporary file is left.
func TestWriteInMode(t *testing.T) {
	ws, _, _ := layout(t)
	p := filepath.Join(ws, "a.txt")
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	for _, perm := range []os.FileMode{0o600, 0o644, 0o755, 0o640} {
		if err := WriteIn([]string{ws}, p, []byte("text\n"), perm); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != perm {
			t.Errorf("mode %v, want %v", fi.Mode().Perm(), perm)
		}
	}
	if err := RemoveIn([]string{ws}, p); err != nil {
		t.Fatal(err)
	}
	if err := RemoveIn([]string{ws}, p); err != nil {
		t.Errorf("removing a file already gone: %v", err)
	}
	if err := RemoveIn([]string{ws}, filepath.Join(ws, "gone", "x")); err != nil {
		t.Errorf("removing a file whose folder is gone: %v", err)
	}
	if entries, _ := os.ReadDir(ws); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// A write that fails for want of room (here RLIMIT_FSIZE, as a full disk: the write fails
// midway) leaves the file as it was and no temporary file, with an error saying so. It runs in a
// child process: the limit is process-wide.
func TestWriteInFullDiskLeavesTheFileWhole(t *testing.T) {
	if dir := os.Getenv("USERFILE_FULL_DISK_DIR"); dir != "" {
		syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 1 << 16, Max: 1 << 16})
		err := WriteIn([]string{dir}, filepath.Join(dir, "a.txt"), make([]byte, 1<<20), 0o644)
		os.Stdout.WriteString("ERR " + func() string {
			if err == nil {
				return "none"
			}
			return err.Error()
		}())
		return
	}
	ws, _, _ := layout(t)
	p := filepath.Join(ws, "a.txt")
	os.WriteFile(p, []byte("whole\n"), 0o644)
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteInFullDiskLeavesTheFileWhole$")
	cmd.Env = append(os.Environ(), "USERFILE_FULL_DISK_DIR="+ws)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ERR "+p+": not written (the file is as it was)") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if got := mustRead(t, p); got != "whole\n" {
		t.Errorf("the file after a failed write: %d bytes", len(got))
	}
	if entries, _ := os.ReadDir(ws); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}
