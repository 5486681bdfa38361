package review

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// gitReader reads a tracked file's blob from git's index, for a file changed by other means
// than Edit/Write. It only reads: `git cat-file` with GIT_OPTIONAL_LOCKS=0 writes no index,
// ref or stash.
type gitReader struct {
	mu   sync.Mutex
	tops map[string]string // directory -> its work tree's top ("" : none)
}

func newGitReader() *gitReader { return &gitReader{tops: map[string]string{}} }

func (g *gitReader) run(dir string, limit int64, args ...string) ([]byte, bool) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(cmd.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var out limited
	out.limit = limit
	cmd.Stdout = &out
	if cmd.Run() != nil || out.over {
		return nil, false
	}
	return out.Bytes(), true
}

func (g *gitReader) top(dir string) string {
	g.mu.Lock()
	top, ok := g.tops[dir]
	g.mu.Unlock()
	if ok {
		return top
	}
	if out, ok := g.run(dir, 4096, "rev-parse", "--show-toplevel"); ok {
		top = strings.TrimSpace(string(out))
		if r, err := filepath.EvalSymlinks(top); err == nil {
			top = r
		}
	}
	g.mu.Lock()
	g.tops[dir] = top
	g.mu.Unlock()
	return top
}

// indexBlob is path's text in the index of its work tree, if it is tracked and at most limit
// bytes.
func (g *gitReader) indexBlob(path string, limit int64) ([]byte, bool) {
	dir := filepath.Dir(path)
	top := g.top(dir)
	if top == "" {
		return nil, false
	}
	rel, err := filepath.Rel(top, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, false
	}
	return g.run(top, limit, "cat-file", "blob", ":"+filepath.ToSlash(rel))
}

// limited is a buffer that refuses more than limit bytes.
type limited struct {
	bytes.Buffer
	limit int64
	over  bool
}

func (l *limited) Write(p []byte) (int, error) {
	if int64(l.Len()+len(p)) > l.limit {
		l.over = true
		return len(p), nil
	}
	return l.Buffer.Write(p)
}
