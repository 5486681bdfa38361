package review

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkGitIndexBlob: the earlier text of one file of a 30,000-file repository (300 folders
// of 100, packed by git gc), as the review reads it: "decode" with a new reader each time (the
// first lookup of a burst), "kept" with one reader (the next ones), and `git cat-file` for
// comparison (what the review ran before issue 35).
//
//	go test -run '^$' -bench GitIndexBlob -benchmem ./internal/review/
func BenchmarkGitIndexBlob(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("no git")
	}
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	for d := 0; d < 300; d++ {
		sub := filepath.Join(dir, fmt.Sprintf("d%d", d))
		os.Mkdir(sub, 0o755)
		for f := 0; f < 100; f++ {
			os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d.txt", f)), []byte(fmt.Sprintf("file %d %d\n", d, f)), 0o644)
		}
	}
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "gc.auto=0"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	run("add", "-A")
	run("commit", "-qm", "x")
	run("gc", "-q")
	path := filepath.Join(dir, "d299", "f99.txt")
	folders := func() []string { return []string{dir} }
	b.Run("decode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			g := newGitReader(folders)
			if _, ok := g.indexBlob(path, DefaultMaxFile); !ok {
				b.Fatal("no text")
			}
			g.close()
		}
	})
	b.Run("kept", func(b *testing.B) {
		g := newGitReader(folders)
		defer g.close()
		for i := 0; i < b.N; i++ {
			if _, ok := g.indexBlob(path, DefaultMaxFile); !ok {
				b.Fatal("no text")
			}
		}
	})
	b.Run("git-cat-file", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := exec.Command("git", "-C", dir, "cat-file", "blob", ":d299/f99.txt").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
