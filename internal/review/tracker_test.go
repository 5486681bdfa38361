package review

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newTracker(t *testing.T, cfg Config) (*Tracker, string) {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	if cfg.Folders == nil {
		cfg.Folders = func() []string { return []string{dir} }
	}
	tr, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr, dir
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func diag(path string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"uri": "file://" + path})
	return b
}

func report(t *testing.T, tr *Tracker, n int) Report {
	t.Helper()
	r, err := tr.Report(n, true)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func byPath(r Report) map[string]FileReport {
	m := map[string]FileReport{}
	for _, f := range r.Files {
		m[f.Path] = f
	}
	return m
}

// waitFor polls cond (the watch delivers events on its own goroutine).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Facts: getDiagnostics {uri} comes right before the CLI writes an Edit/Write, closeAllDiffTabs
// at each prompt. The text read on that call is the file's earlier text; a file the model only
// asked diagnostics for and did not change is not listed.
func TestEditAndWriteSnapshots(t *testing.T) {
	tr, dir := newTracker(t, Config{})
	a, b, c := filepath.Join(dir, "a.txt"), filepath.Join(dir, "new.txt"), filepath.Join(dir, "same.txt")
	write(t, a, "one\ntwo\nthree\n")
	write(t, c, "same\n")
	tr.ToolCall(1, "closeAllDiffTabs", json.RawMessage(`{}`))
	tr.ToolCall(1, "getDiagnostics", diag(a))
	write(t, a, "one\nTWO\nthree\n")
	tr.ToolCall(1, "getDiagnostics", diag(a)) // a second edit of a: the turn's start text stays
	write(t, a, "one\nTWO\nthree\nfour\n")
	tr.ToolCall(1, "getDiagnostics", diag(b))
	write(t, b, "new\n")
	tr.ToolCall(1, "getDiagnostics", diag(c))
	tr.ToolCall(1, "getDiagnostics", json.RawMessage(`{}`))

	r := report(t, tr, 0)
	if !r.Running || r.Turn != 1 || len(r.Files) != 2 {
		t.Fatalf("report %+v, want turn 1 running with a.txt and new.txt", r)
	}
	fa, fb := r.Files[0], r.Files[1]
	if fa.Path != a || fa.Status != "modified" || fa.By != "Edit/Write" || fa.From != FromSnapshot || *fa.Before != "one\ntwo\nthree\n" ||
		*fa.After != "one\nTWO\nthree\nfour\n" || fa.Added != 2 || fa.Deleted != 1 || !strings.Contains(fa.Diff, "-two\n+TWO\n") {
		t.Errorf("a.txt: %+v", fa)
	}
	if fb.Path != b || fb.Status != "created" || fb.Before != nil || *fb.After != "new\n" || fb.Added != 1 || !strings.Contains(fb.Diff, "--- /dev/null") {
		t.Errorf("new.txt: %+v", fb)
	}
	if got := r.Summary.String(); got != "Claude changed 2 files: +3 -1" {
		t.Errorf("summary %q", got)
	}
	// The next prompt ends turn 1 with the text Claude left; a later change is not its.
	tr.ToolCall(1, "closeAllDiffTabs", json.RawMessage(`{}`))
	write(t, a, "user's\n")
	if fa := byPath(report(t, tr, 1))[a]; *fa.After != "one\nTWO\nthree\nfour\n" {
		t.Errorf("turn 1 after it ended: %q", *fa.After)
	}
	if _, err := tr.Report(7, false); err == nil || !strings.Contains(err.Error(), "turns kept: 1 to 2") {
		t.Errorf("Report(7): %v", err)
	}
}

// The summary goes out once, at the turn's end (the Stop hook, or the next prompt).
func TestTurnEndedSummary(t *testing.T) {
	got := make(chan Summary, 4)
	tr, dir := newTracker(t, Config{TurnEnded: func(s Summary) { got <- s }})
	a := filepath.Join(dir, "a.txt")
	write(t, a, "x\n")
	tr.Prompt()
	tr.Touch(a)
	write(t, a, "y\nz\n")
	tr.EndTurn()
	tr.EndTurn()
	tr.Prompt() // an empty turn says nothing
	tr.EndTurn()
	select {
	case s := <-got:
		if s.String() != "Claude changed 1 file: +2 -1" || s.Turn != 1 || s.Running {
			t.Errorf("summary %+v %q", s, s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no summary")
	}
	tr.Close()
	if len(got) != 0 {
		t.Errorf("more summaries: %v", <-got)
	}
}

func gitRepo(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	for n, s := range files {
		write(t, filepath.Join(dir, n), s)
		run("add", n)
	}
	run("commit", "-qm", "x")
}

// Changes by other means while a turn runs (Bash sed -i, a formatter): seen by the watch, with
// git's index as the earlier text of a tracked file and none for a file created in the turn;
// outside a turn nothing is recorded; git's index is not touched.
func TestWatchOtherChanges(t *testing.T) {
	tr, dir := newTracker(t, Config{Watch: true})
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	gitRepo(t, dir, map[string]string{"tracked.go": "package a\nvar x = 1\n", "sub/idle.txt": "idle\n"})
	index := filepath.Join(dir, ".git", "index")
	before, _ := os.Stat(index)
	tracked, made, idle := filepath.Join(dir, "tracked.go"), filepath.Join(sub, "made.txt"), filepath.Join(sub, "idle.txt")
	waitFor(t, "the watch", func() bool { tr.w.mu.Lock(); defer tr.w.mu.Unlock(); return tr.w.count >= 2 })

	write(t, idle, "changed with no turn running\n")
	time.Sleep(50 * time.Millisecond) // as below
	tr.Prompt()
	write(t, tracked, "package a\nvar x = 2\n")
	write(t, made, "made\n")
	waitFor(t, "both files", func() bool { return len(report(t, tr, 0).Files) == 2 })
	m := byPath(report(t, tr, 0))
	if f := m[tracked]; f.By != "other" || f.From != FromGit || *f.Before != "package a\nvar x = 1\n" || !strings.Contains(f.Diff, "-var x = 1\n+var x = 2\n") {
		t.Errorf("tracked.go: %+v", f)
	}
	if f := m[made]; f.Status != "created" || f.From != FromCreate || *f.After != "made\n" {
		t.Errorf("made.txt: %+v", f)
	}
	if _, ok := m[idle]; ok {
		t.Errorf("a change before the turn was recorded")
	}
	tr.EndTurn()
	write(t, made, "after the turn\n")
	time.Sleep(50 * time.Millisecond) // not an assertion: the user's next prompt comes later (mtimeSlack)
	tr.Prompt()
	time.Sleep(100 * time.Millisecond) // not an assertion: lets a wrong event arrive
	if n := len(report(t, tr, 2).Files); n != 0 {
		t.Errorf("turn 2 has %d files; the change came between turns", n)
	}
	if after, _ := os.Stat(index); !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Errorf("git's index changed")
	}
}

// Revert puts the turn's earlier text back (a file Claude created goes), counts as the user's
// write (the watch does not give it to Claude), and the turn no longer lists the file.
func TestRevert(t *testing.T) {
	tr, dir := newTracker(t, Config{Watch: true})
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	write(t, a, "old\n")
	waitFor(t, "the watch", func() bool { tr.w.mu.Lock(); defer tr.w.mu.Unlock(); return tr.w.count >= 1 })
	tr.Prompt()
	tr.Touch(a)
	write(t, a, "new\n")
	tr.Touch(b)
	write(t, b, "b\n")
	tr.EndTurn()
	time.Sleep(50 * time.Millisecond) // not an assertion: the next prompt comes later than mtimeSlack
	tr.Prompt()                       // a turn runs: the watch records changes now
	if err := tr.Revert(1, a); err != nil {
		t.Fatal(err)
	}
	if err := tr.Revert(1, b); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(a); string(got) != "old\n" {
		t.Errorf("a.txt %q after revert", got)
	}
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Errorf("b.txt still there: %v", err)
	}
	time.Sleep(100 * time.Millisecond) // not an assertion: lets the events of the revert arrive
	if n := len(report(t, tr, 2).Files); n != 0 {
		t.Errorf("the revert counted as Claude's in turn 2: %+v", report(t, tr, 2).Files)
	}
	tr.mu.Lock()
	for _, f := range tr.turns[len(tr.turns)-1].files { // not even unlisted: the temporary file
		t.Errorf("turn 2 recorded %s", f.path)
	}
	tr.mu.Unlock()
	if n := len(report(t, tr, 1).Files); n != 0 {
		t.Errorf("turn 1 still lists %d files after both were reverted", n)
	}
	if err := tr.Revert(1, filepath.Join(dir, "other.txt")); err == nil {
		t.Error("reverted a file the turn did not change")
	}
}

// Bounds: a file over MaxFile is listed, not kept; over MaxTotal the oldest turns go; no more
// than MaxTurns turns; binary files are listed, not diffed.
func TestBounds(t *testing.T) {
	tr, dir := newTracker(t, Config{MaxFile: 100, MaxTotal: 250, MaxTurns: 3})
	big, bin := filepath.Join(dir, "big.txt"), filepath.Join(dir, "bin.dat")
	write(t, big, strings.Repeat("x", 101))
	write(t, bin, "a\x00b")
	tr.Prompt()
	tr.Touch(big)
	write(t, big, strings.Repeat("y", 101))
	tr.Touch(bin)
	write(t, bin, "a\x00c")
	m := byPath(report(t, tr, 0))
	if f := m[big]; !f.TooBig || f.Diff != "" || f.Before != nil {
		t.Errorf("big: %+v", f)
	}
	if f := m[bin]; !f.Binary || f.Diff != "" || f.Status != "modified" {
		t.Errorf("binary: %+v", f)
	}
	for i := 0; i < 4; i++ {
		p := filepath.Join(dir, "f"+string(rune('0'+i)))
		write(t, p, strings.Repeat("a", 90))
		tr.Prompt()
		tr.Touch(p)
		write(t, p, strings.Repeat("b", 90))
		tr.EndTurn()
	}
	turns := tr.Turns()
	if len(turns) > 3 || turns[0].Turn != 5 {
		t.Errorf("turns kept %+v", turns)
	}
	tr.mu.Lock()
	total := tr.total
	tr.mu.Unlock()
	if total > 250 {
		t.Errorf("kept %d bytes, over MaxTotal", total)
	}
}

// An editor's "the user saved it" that arrives after the watch saw the save still takes the
// change back from Claude's turn.
func TestUserWroteAfterTheWatch(t *testing.T) {
	tr, dir := newTracker(t, Config{Watch: true})
	a := filepath.Join(dir, "a.txt")
	write(t, a, "x\n")
	waitFor(t, "the watch", func() bool { tr.w.mu.Lock(); defer tr.w.mu.Unlock(); return tr.w.count >= 1 })
	tr.Prompt()
	write(t, a, "user's\n")
	waitFor(t, "the watch to record it", func() bool { return len(report(t, tr, 0).Files) == 1 })
	tr.UserWrote(a, []byte("user's\n"))
	if n := len(report(t, tr, 0).Files); n != 0 {
		t.Errorf("the user's save is still Claude's: %+v", report(t, tr, 0).Files)
	}
}

// An editor's userWrote names a path; the Tracker reads it through userfile.Read (bounded,
// regular files only, nothing under /proc, /sys or /dev even through a link): a link the
// workspace holds to /proc/self/status, which stat calls a regular file, is not read.
func TestUserSavedReadsOnlyUserFiles(t *testing.T) {
	tr, dir := newTracker(t, Config{})
	saved := filepath.Join(dir, "a.txt")
	write(t, saved, "mine\n")
	link := filepath.Join(dir, "status")
	if err := os.Symlink("/proc/self/status", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{saved, link, "a.txt"} {
		tr.UserSaved(p)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.user) != 1 || tr.user[saved] != (userWrite{sum: sha([]byte("mine\n"))}) {
		t.Errorf("the user's writes %v, want only %s", tr.user, saved)
	}
}
