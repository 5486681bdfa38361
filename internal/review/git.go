package review

import (
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Bounds of what gitReader holds: go-git decodes the whole index and holds every pack's .idx
// in memory (plus a map of its offsets), so a repository past these gives no earlier text
// rather than hundreds of MiB. 16 MiB of index is ~200,000 files, 32 MiB of .idx ~1.1 million
// objects. What is decoded is kept while lookups come (a formatter changing 1,000 files: one
// decode, not 1,000), counted in the memory budget (gitHeld times the files' sizes: 2.2 was
// measured, 7 MiB held for a 2.4 MiB index and a 0.8 MiB .idx), and let go gitIdle after the
// last lookup.
const (
	maxGitIndex    = 16 << 20
	maxGitPackIdx  = 32 << 20
	gitHeld        = 3
	gitObjectCache = 4 << 20 // delta bases
	gitIdle        = 30 * time.Second
)

// gitReader reads a tracked file's text from the index of its workspace folder's own
// repository, for a file changed by other means than Edit/Write. It runs no git: it reads the
// files of <folder>/.git with go-git, which runs no hook, fsmonitor, filter, textconv or any
// other command a repository's configuration names, and reads none of that configuration.
// Only a workspace folder's own `.git` directory is read (the innermost folder holding the file
// that has one): never a repository found by walking up from the file (a folder of plain files
// in a clone, or a `sub/.git` the model wrote, can pose as one) nor one above the folder, and
// never a `.git` file (a gitdir link, which may point anywhere); nothing out of that directory
// is followed (objects/info/alternates, symlinks).
type gitReader struct {
	folders func() []string

	mu    sync.Mutex
	repos map[string]*gitDir // by .git directory
	idle  *time.Timer        // drops repos
}

// gitDir is what was decoded of one .git directory, and the files it was decoded from.
type gitDir struct {
	index   os.FileInfo
	files   map[string]plumbing.Hash // stage 0 regular files of the index
	packDir os.FileInfo
	st      *filesystem.Storage
	held    *membudget.Grant
}

func newGitReader(folders func() []string) *gitReader { return &gitReader{folders: folders} }

// close lets go of what is decoded.
func (g *gitReader) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.idle != nil {
		g.idle.Stop()
	}
	g.dropLocked()
}

func (g *gitReader) dropLocked() {
	for _, r := range g.repos {
		r.let()
	}
	g.repos = nil
}

// indexBlob is path's text in the index (stage 0) of the repository of the workspace folder
// that holds path, if it is a tracked regular file and at most limit bytes.
func (g *gitReader) indexBlob(path string, limit int64) ([]byte, bool) {
	// The innermost workspace folder with a .git directory that holds path: folders may nest
	// (a folder and one of its subfolders both opened).
	var top, rel string
	for _, f := range g.holding(path) {
		if fi, err := os.Lstat(filepath.Join(f[0], ".git")); err == nil && fi.IsDir() {
			top, rel = f[0], f[1]
			break
		}
	}
	if top == "" {
		return nil, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.idle == nil {
		g.idle = time.AfterFunc(gitIdle, func() { g.mu.Lock(); g.dropLocked(); g.mu.Unlock() })
	} else {
		g.idle.Reset(gitIdle)
	}
	repo := g.repoLocked(filepath.Join(top, ".git"))
	hash, ok := repo.files[rel]
	if !ok {
		return nil, false
	}
	if size, err := repo.st.EncodedObjectSize(hash); err != nil || size > limit {
		return nil, false
	}
	obj, err := repo.st.EncodedObject(plumbing.BlobObject, hash)
	if err != nil || obj.Size() > limit {
		return nil, false
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, false
	}
	defer r.Close()
	data := make([]byte, obj.Size())
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, false
	}
	return data, true
}

// repoLocked is dotgit decoded, again if its index or packs changed since; an empty gitDir if
// it is not a directory or is past the bounds.
func (g *gitReader) repoLocked(dotgit string) *gitDir {
	none := &gitDir{}
	if fi, err := os.Lstat(dotgit); err != nil || !fi.IsDir() {
		return none
	}
	ifi, err := os.Stat(filepath.Join(dotgit, "index"))
	if err != nil || ifi.Size() > maxGitIndex {
		return none
	}
	pfi, _ := os.Stat(filepath.Join(dotgit, "objects", "pack"))
	old := g.repos[dotgit]
	if old != nil && same(old.index, ifi) && same(old.packDir, pfi) {
		return old
	}
	if old != nil {
		old.let()
		delete(g.repos, dotgit)
	}
	packs := packIdxSize(dotgit)
	if packs > maxGitPackIdx {
		return none
	}
	held, err := membudget.Default.Take(gitHeld*(ifi.Size()+packs), "git's index of "+filepath.Dir(dotgit))
	if err != nil {
		return none
	}
	// BoundOS: every path go-git opens is resolved inside .git, links included.
	st := filesystem.NewStorageWithOptions(osfs.New(dotgit, osfs.WithBoundOS()),
		cache.NewObjectLRU(gitObjectCache), filesystem.Options{})
	repo := &gitDir{index: ifi, packDir: pfi, st: st, held: held}
	idx, err := st.Index()
	if err != nil {
		repo.let()
		return none
	}
	repo.files = make(map[string]plumbing.Hash, len(idx.Entries))
	for _, e := range idx.Entries {
		// Stage 0, as the decoder reads it from disk: go-git's index.Merged is 1, which is the
		// common ancestor's stage in a conflict.
		if e.Stage == 0 && !e.IntentToAdd && (e.Mode == filemode.Regular || e.Mode == filemode.Executable) {
			repo.files[e.Name] = e.Hash
		}
	}
	if g.repos == nil {
		g.repos = map[string]*gitDir{}
	}
	g.repos[dotgit] = repo
	return repo
}

// let lets go of what r holds.
func (r *gitDir) let() {
	r.st.Close()
	r.held.Release()
}

// same: a and b are the same file, unchanged (git replaces its index by a rename: a new file).
func same(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// holding lists the workspace folders holding path, innermost first, each with path relative
// to it, with '/'.
func (g *gitReader) holding(path string) [][2]string {
	var out [][2]string
	for _, d := range g.folders() {
		if d == "" || !userfile.Within(d, path) {
			continue
		}
		if r, _ := filepath.Rel(d, path); r != "." { // the folder itself holds no file
			out = append(out, [2]string{d, filepath.ToSlash(r)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i][0]) > len(out[j][0]) })
	return out
}

// packIdxSize is the size of the pack indexes go-git would load.
func packIdxSize(dotgit string) int64 {
	ents, _ := os.ReadDir(filepath.Join(dotgit, "objects", "pack"))
	var n int64
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".idx") {
			if fi, err := e.Info(); err == nil {
				n += fi.Size()
			}
		}
	}
	return n
}
