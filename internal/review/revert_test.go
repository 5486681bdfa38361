package review

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outsideDir is a folder beside the workspace holding secret.txt.
func outsideDir(t *testing.T) (dir, secret string) {
	t.Helper()
	dir, _ = filepath.EvalSymlinks(t.TempDir())
	secret = filepath.Join(dir, "secret.txt")
	write(t, secret, "outside\n")
	return dir, secret
}

// Issue 35 item 3: a recorded file swapped for a link to an outside file during the turn. The
// revert is refused naming the link; the outside file keeps its text (it got the snapshot).
func TestRevertThroughASwappedLink(t *testing.T) {
	tr, dir := newTracker(t, Config{})
	_, secret := outsideDir(t)
	a := filepath.Join(dir, "a.txt")
	write(t, a, "snapshot\n")
	tr.Prompt()
	tr.Touch(a)
	write(t, a, "changed\n")
	tr.EndTurn()
	os.Remove(a)
	if err := os.Symlink(secret, a); err != nil {
		t.Fatal(err)
	}
	err := tr.Revert(1, a)
	if err == nil || !strings.Contains(err.Error(), "not reverted: "+a+" is a symbolic link") {
		t.Errorf("revert through a link: %v", err)
	}
	if got, _ := os.ReadFile(secret); string(got) != "outside\n" {
		t.Errorf("the outside file was written: %q", got)
	}
}

// Issue 35 item 3: a file created in the turn (recorded as absent) whose folder is then swapped
// for a link to an outside folder holding a file of that name: the outside file is not removed.
func TestRevertThroughASwappedFolder(t *testing.T) {
	tr, dir := newTracker(t, Config{})
	outside, _ := outsideDir(t)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	made := filepath.Join(sub, "made.txt")
	tr.Prompt()
	tr.Touch(made)
	write(t, made, "made\n")
	tr.EndTurn()
	os.RemoveAll(sub)
	if err := os.Symlink(outside, sub); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(outside, "made.txt")
	write(t, victim, "the user's\n")
	err := tr.Revert(1, made)
	if err == nil || !strings.Contains(err.Error(), sub+" is a symbolic link") {
		t.Errorf("revert through a folder link: %v", err)
	}
	if got, err := os.ReadFile(victim); err != nil || string(got) != "the user's\n" {
		t.Errorf("the outside file: %q %v", got, err)
	}
}

// Issue 35 item 3: revert restores the mode the file had when recorded: a 0600 file deleted in
// the turn comes back 0600 (it came back 0644), one made 0644 in the turn goes back to 0600.
func TestRevertKeepsTheRecordedMode(t *testing.T) {
	tr, dir := newTracker(t, Config{})
	gone, opened := filepath.Join(dir, "gone.key"), filepath.Join(dir, "opened.key")
	for _, p := range []string{gone, opened} {
		if err := os.WriteFile(p, []byte("private\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tr.Prompt()
	tr.Touch(gone)
	tr.Touch(opened)
	os.Remove(gone)
	write(t, opened, "changed\n")
	os.Chmod(opened, 0o644)
	tr.EndTurn()
	for _, p := range []string{gone, opened} {
		if err := tr.Revert(1, p); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s after revert: %v %v, want mode 0600", filepath.Base(p), fi.Mode(), err)
		}
		if got, _ := os.ReadFile(p); string(got) != "private\n" {
			t.Errorf("%s after revert: %q", filepath.Base(p), got)
		}
	}
}

// Issue 35 item 6: the review records only files inside the workspace folders, judged with
// symlinks resolved: an absolute path elsewhere and a path through an inside link to an outside
// folder are not recorded (the model names any path it likes), so no report lists them and no
// revert can write them.
func TestRecordsOnlyInsideTheWorkspace(t *testing.T) {
	tr, dir := newTracker(t, Config{})
	outside, secret := outsideDir(t)
	link := filepath.Join(dir, "out")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.txt")
	write(t, in, "in\n")
	tr.ToolCall(1, "closeAllDiffTabs", json.RawMessage(`{}`))
	for _, p := range []string{secret, filepath.Join(link, "secret.txt"), filepath.Join(dir, "..", filepath.Base(outside), "secret.txt"), in} {
		tr.ToolCall(1, "getDiagnostics", diag(p))
	}
	write(t, secret, "changed outside\n")
	write(t, in, "changed in\n")
	tr.EndTurn()
	r := report(t, tr, 1)
	if len(r.Files) != 1 || r.Files[0].Path != in {
		t.Errorf("recorded %+v, want in.txt alone", r.Files)
	}
	if err := tr.Revert(1, secret); err == nil || !strings.Contains(err.Error(), "did not change") {
		t.Errorf("revert of the outside file: %v", err)
	}
}
