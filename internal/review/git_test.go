package review

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
)

// The earlier text of a file changed by other means comes from the workspace folder's own
// repository, read without running git: nothing a repository or the model configures runs
// (issue 35 item 1). The repositories here are made by the real git; the commands they
// configure would each create a file in a folder outside the workspace.

// realGit is the git the tests use to build repositories (looked up before a test changes $PATH).
func realGit(t *testing.T) string {
	t.Helper()
	g, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	return g
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(realGit(t), append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// tree writes files (path -> text, "/"-separated, under dir), making their folders.
func tree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for n, s := range files {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, p, s)
	}
}

// committed makes dir a repository holding files in one commit.
func committed(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	gitIn(t, dir, "init", "-q")
	tree(t, dir, files)
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-qm", "x")
}

// markers is a folder outside the workspace and a shell command that creates name in it.
type markers string

func newMarkers(t *testing.T) markers { return markers(t.TempDir()) }

func (m markers) cmd(name string) string { return "touch " + filepath.Join(string(m), name) }

func (m markers) none(t *testing.T) {
	t.Helper()
	ents, _ := os.ReadDir(string(m))
	var ran []string
	for _, e := range ents {
		ran = append(ran, e.Name())
	}
	if len(ran) > 0 {
		t.Errorf("commands the workspace configured ran: %v", ran)
	}
}

// watching is a Tracker watching dir (set up before: the watch walks it once), waiting until
// the watch covers its folders.
func watching(t *testing.T, folder string) *Tracker {
	t.Helper()
	tr, err := New(Config{Folders: func() []string { return []string{folder} }, Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	dirs := 0
	filepath.WalkDir(folder, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			if p != folder && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			dirs++
		}
		return nil
	})
	waitFor(t, "the watch", func() bool { return len(tr.w.fs.WatchList()) >= dirs }) // added, not only counted
	return tr
}

// bashChanges is a change made during a turn by other means than Edit/Write (Claude's Bash):
// it returns the file's record once the watch has seen it.
func bashChanges(t *testing.T, tr *Tracker, path, text string) FileReport {
	t.Helper()
	write(t, path, text)
	var f FileReport
	waitFor(t, "the watch to record "+path, func() bool {
		var ok bool
		f, ok = byPath(report(t, tr, 0))[path]
		return ok
	})
	return f
}

// (a) A cloned tree carries a folder of plain files git takes for a repository (HEAD,
// objects/, refs/ and a config with worktree = . and core.fsmonitor): git run in that folder
// ran the fsmonitor. The earlier text comes from the workspace's own index instead.
func TestGitFakeGitdirInCloneRunsNothing(t *testing.T) {
	m := newMarkers(t)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	committed(t, ws, map[string]string{
		"a.txt":                   "a\n",
		"vendor/lib/HEAD":         "ref: refs/heads/main\n",
		"vendor/lib/objects/keep": "",
		"vendor/lib/refs/keep":    "",
		"vendor/lib/config": "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n" +
			"\tfsmonitor = \"" + m.cmd("fsmonitor") + "\"\n",
		"vendor/lib/foo.c": "int x = 1;\n",
	})
	tr := watching(t, ws)
	tr.Prompt()
	f := bashChanges(t, tr, filepath.Join(ws, "vendor", "lib", "foo.c"), "int x = 2;\n")
	m.none(t)
	if f.From != FromGit || f.Before == nil || *f.Before != "int x = 1;\n" {
		t.Errorf("foo.c: from %q before %v, want the workspace index's text", f.From, f.Before)
	}
}

// (b) The model, with Write alone, writes sub/.git (a gitdir file) naming a folder it wrote
// with HEAD and a config with core.fsmonitor: git run in sub ran it.
func TestGitGitfileWrittenByModelRunsNothing(t *testing.T) {
	m := newMarkers(t)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	committed(t, ws, map[string]string{"sub/a.txt": "one\n"})
	tr := watching(t, ws)
	// Claude's Writes (in a turn before: the old code's per-folder cache made the order of
	// events decide which repository a turn's lookup found).
	for _, w := range [][2]string{
		{"evil/HEAD", "ref: refs/heads/main\n"},
		{"evil/objects/keep", ""},
		{"evil/refs/keep", ""},
		{"evil/config", "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"" + m.cmd("fsmonitor") + "\"\n"},
		{"sub/.git", "gitdir: ../evil\n"},
	} {
		tree(t, ws, map[string]string{w[0]: w[1]})
	}
	time.Sleep(50 * time.Millisecond) // not an assertion: the next prompt comes later than mtimeSlack
	tr.Prompt()
	// Claude's Bash.
	f := bashChanges(t, tr, filepath.Join(ws, "sub", "a.txt"), "two\n")
	m.none(t)
	if f.From != FromGit || f.Before == nil || *f.Before != "one\n" {
		t.Errorf("sub/a.txt: from %q before %v, want the workspace index's text", f.From, f.Before)
	}
}

// The workspace's own .git/config, as a cloned tool or the model may write it: fsmonitor,
// hooks, a filter and a textconv that .gitattributes selects, none of which runs.
func TestGitHostileWorkspaceConfigRunsNothing(t *testing.T) {
	m := newMarkers(t)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	committed(t, ws, map[string]string{"a.txt": "old\n", ".gitattributes": "* filter=evil diff=evil\n"})
	hooks := filepath.Join(ws, ".hooks")
	os.Mkdir(hooks, 0o755)
	for _, h := range []string{"post-index-change", "reference-transaction", "post-checkout", "pre-commit", "fsmonitor-watchman", "pre-auto-gc"} {
		if err := os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\n"+m.cmd("hook-"+h)+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := os.OpenFile(filepath.Join(ws, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.WriteString("[core]\n\tfsmonitor = \"" + m.cmd("fsmonitor") + "\"\n\thooksPath = " + hooks + "\n" +
		"[filter \"evil\"]\n\tclean = \"" + m.cmd("clean") + "\"\n\tsmudge = \"" + m.cmd("smudge") + "\"\n\trequired = true\n" +
		"[diff \"evil\"]\n\ttextconv = \"" + m.cmd("textconv") + "\"\n")
	cfg.Close()
	indexTextWithoutGit(t, m, ws)
}

// indexTextWithoutGit checks that a Bash change of ws/a.txt (committed as "old") gets its earlier
// text from git's index, and that nothing marked by m ran meanwhile.
func indexTextWithoutGit(t *testing.T, m markers, ws string) {
	t.Helper()
	tr := watching(t, ws)
	tr.Prompt()
	f := bashChanges(t, tr, filepath.Join(ws, "a.txt"), "new\n")
	m.none(t)
	if f.From != FromGit || f.Before == nil || *f.Before != "old\n" {
		t.Errorf("a.txt: from %q before %v, want the index's text", f.From, f.Before)
	}
}

// A `git` the workspace provides on $PATH (a bin/ a tool put there, node_modules/.bin) never
// runs: the bridge runs no git at all.
func TestGitOnPathFromWorkspaceNotRun(t *testing.T) {
	m := newMarkers(t)
	real := realGit(t)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	committed(t, ws, map[string]string{"a.txt": "old\n"})
	bin := filepath.Join(ws, "bin")
	os.Mkdir(bin, 0o755)
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\n"+m.cmd("git")+"\nexec "+real+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	indexTextWithoutGit(t, m, ws)
}

// The earlier text is the index's (stage 0), not HEAD's: a file staged differently from HEAD
// gives the staged text; objects are read loose, packed whole and packed as deltas (after
// `git gc`); a file only in HEAD (removed from the index) or untracked has none.
func TestGitEarlierTextIsTheIndexs(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	var long strings.Builder
	for i := 0; i < 400; i++ {
		long.WriteString("line of a long file that git stores as a delta " + string(rune('a'+i%26)) + "\n")
	}
	big := long.String()
	small := strings.Replace(big, "delta a\n", "delta A\n", 1)
	committed(t, ws, map[string]string{"packed.txt": "packed\n", "staged.txt": "head\n", "delta.txt": big, "gone.txt": "gone\n", "later.txt": "v1\n"})
	write(t, filepath.Join(ws, "delta.txt"), small)
	gitIn(t, ws, "commit", "-qam", "y") // delta.txt: two versions, one packed as a delta of the other
	write(t, filepath.Join(ws, "staged.txt"), "staged\n")
	gitIn(t, ws, "add", "staged.txt")
	gitIn(t, ws, "rm", "-q", "--cached", "gone.txt")
	gitIn(t, ws, "gc", "-q")
	if out := gitIn(t, ws, "count-objects", "-v"); !strings.Contains(out, "count: 0\n") {
		t.Fatalf("objects left loose after gc:\n%s", out)
	}
	tree(t, ws, map[string]string{"loose.txt": "loose\n", "untracked.txt": "u\n"})
	gitIn(t, ws, "add", "loose.txt")
	write(t, filepath.Join(ws, "staged.txt"), "work tree\n") // not staged: the index keeps "staged\n"

	budget := membudget.Default.Used()
	tr := watching(t, ws)
	tr.Prompt()
	for name, want := range map[string]string{"packed.txt": "packed\n", "staged.txt": "staged\n", "delta.txt": small, "loose.txt": "loose\n"} {
		f := bashChanges(t, tr, filepath.Join(ws, name), "changed\n")
		if f.From != FromGit || f.Before == nil || *f.Before != want {
			t.Errorf("%s: from %q before %.40q, want the index's %.40q", name, f.From, deref(f.Before), want)
		}
	}
	for _, name := range []string{"gone.txt", "untracked.txt"} {
		if f := bashChanges(t, tr, filepath.Join(ws, name), "changed\n"); f.From != FromNone {
			t.Errorf("%s: from %q, want %q", name, f.From, FromNone)
		}
	}
	// An index git rewrote since (here between two turns) is read again.
	tr.EndTurn()
	write(t, filepath.Join(ws, "later.txt"), "restaged\n")
	gitIn(t, ws, "add", "later.txt")
	time.Sleep(50 * time.Millisecond) // not an assertion: the next prompt comes later than mtimeSlack
	tr.Prompt()
	if f := bashChanges(t, tr, filepath.Join(ws, "later.txt"), "changed\n"); f.From != FromGit || deref(f.Before) != "restaged\n" {
		t.Errorf("later.txt: from %q before %q, want the index's new text", f.From, deref(f.Before))
	}
	// What is decoded is held in the memory budget until the Tracker lets it go.
	if membudget.Default.Used() <= budget {
		t.Errorf("the decoded index is not counted in the memory budget")
	}
	tr.Close()
	if used := membudget.Default.Used(); used != budget {
		t.Errorf("the budget holds %d bytes after Close, %d before", used, budget)
	}
}

// Only the workspace folder's own repository is read: not one above it (a folder opened inside
// a repository), nor one below (a nested clone).
func TestGitOnlyTheFoldersOwnRepository(t *testing.T) {
	top, _ := filepath.EvalSymlinks(t.TempDir())
	committed(t, top, map[string]string{"ws/a.txt": "a\n"})
	ws := filepath.Join(top, "ws")
	os.MkdirAll(filepath.Join(ws, "nested"), 0o755)
	committed(t, filepath.Join(ws, "nested"), map[string]string{"b.txt": "b\n"})
	tr := watching(t, ws)
	tr.Prompt()
	for _, p := range []string{filepath.Join(ws, "a.txt"), filepath.Join(ws, "nested", "b.txt")} {
		if f := bashChanges(t, tr, p, "changed\n"); f.From != FromNone {
			t.Errorf("%s: from %q, want %q", p, f.From, FromNone)
		}
	}
	// With the repository's folder opened too (folders may nest), its index answers for ws.
	tr.Close()
	tr, err := New(Config{Folders: func() []string { return []string{ws, top} }, Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	waitFor(t, "the watch", func() bool { return len(tr.w.fs.WatchList()) >= 3 })
	tr.Prompt()
	if f := bashChanges(t, tr, filepath.Join(ws, "a.txt"), "again\n"); f.From != FromGit || deref(f.Before) != "a\n" {
		t.Errorf("ws/a.txt with %s a folder too: from %q before %q, want the index's", top, f.From, deref(f.Before))
	}
}

// A file in a merge conflict has no stage 0 in the index: its earlier text is not known (not
// the common ancestor's, stage 1, nor either side's).
func TestGitConflictedFileHasNoEarlierText(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	committed(t, ws, map[string]string{"c.txt": "base\n"})
	gitIn(t, ws, "checkout", "-q", "-b", "other")
	write(t, filepath.Join(ws, "c.txt"), "theirs\n")
	gitIn(t, ws, "commit", "-qam", "theirs")
	gitIn(t, ws, "checkout", "-q", "-")
	write(t, filepath.Join(ws, "c.txt"), "ours\n")
	gitIn(t, ws, "commit", "-qam", "ours")
	cmd := exec.Command(realGit(t), "-C", ws, "merge", "-q", "other")
	cmd.Env = append(os.Environ(), "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if cmd.Run() == nil || !strings.Contains(gitIn(t, ws, "ls-files", "-u"), "c.txt") {
		t.Fatal("no conflict")
	}
	tr := watching(t, ws)
	tr.Prompt()
	if f := bashChanges(t, tr, filepath.Join(ws, "c.txt"), "resolved\n"); f.From != FromNone {
		t.Errorf("c.txt: from %q before %.40q, want %q", f.From, deref(f.Before), FromNone)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
