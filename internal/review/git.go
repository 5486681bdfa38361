package review

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Bounds of what gitReader decodes: go-git holds the whole index and every pack's .idx in
// memory (plus a map of its offsets), so a repository past these gives no earlier text rather
// than hundreds of MiB per lookup. 32 MiB of .idx is ~1.1 million objects; 32 MiB of index
// ~250,000 files.
const (
	maxGitIndex    = 32 << 20
	maxGitPackIdx  = 32 << 20
	gitObjectCache = 4 << 20 // delta bases, for one lookup
)

// gitReader reads a tracked file's text from the index of its workspace folder's own
// repository, for a file changed by other means than Edit/Write. It runs no git: it reads the
// files of <folder>/.git with go-git, which runs no hook, fsmonitor, filter, textconv or any
// other command a repository's configuration names, and reads none of that configuration.
// Only a workspace folder's own `.git` directory is read: never a repository found by walking
// up from the file (a folder of plain files in a clone, or a `sub/.git` the model wrote, can
// pose as one) nor one above the folder, and never a `.git` file (a gitdir link, which may point
// anywhere); nothing out of that directory is followed (objects/info/alternates, symlinks).
type gitReader struct {
	folders func() []string
}

func newGitReader(folders func() []string) *gitReader { return &gitReader{folders: folders} }

// indexBlob is path's text in the index (stage 0) of the repository of the workspace folder
// that holds path, if it is a tracked regular file and at most limit bytes.
func (g *gitReader) indexBlob(path string, limit int64) ([]byte, bool) {
	top, rel := g.folderOf(path)
	if top == "" {
		return nil, false
	}
	dotgit := filepath.Join(top, ".git")
	if fi, err := os.Lstat(dotgit); err != nil || !fi.IsDir() {
		return nil, false
	}
	if fi, err := os.Stat(filepath.Join(dotgit, "index")); err != nil || fi.Size() > maxGitIndex || packIdxSize(dotgit) > maxGitPackIdx {
		return nil, false
	}
	// BoundOS: every path go-git opens is resolved inside .git, links included.
	st := filesystem.NewStorageWithOptions(osfs.New(dotgit, osfs.WithBoundOS()),
		cache.NewObjectLRU(gitObjectCache), filesystem.Options{})
	defer st.Close()
	idx, err := st.Index()
	if err != nil {
		return nil, false
	}
	var hash plumbing.Hash
	found := false
	for _, e := range idx.Entries {
		// Stage 0, as the decoder reads it from disk: go-git's index.Merged is 1, which is the
		// common ancestor's stage in a conflict.
		if e.Name == rel && e.Stage == 0 && !e.IntentToAdd && (e.Mode == filemode.Regular || e.Mode == filemode.Executable) {
			hash, found = e.Hash, true
			break
		}
	}
	if !found {
		return nil, false
	}
	if size, err := st.EncodedObjectSize(hash); err != nil || size > limit {
		return nil, false
	}
	obj, err := st.EncodedObject(plumbing.BlobObject, hash)
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

// folderOf is the innermost workspace folder holding path and path relative to it, with '/'
// ("" if none holds it).
func (g *gitReader) folderOf(path string) (top, rel string) {
	for _, d := range g.folders() {
		if d == "" || len(d) <= len(top) {
			continue
		}
		if r, err := filepath.Rel(d, path); err == nil && r != "." && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			top, rel = d, filepath.ToSlash(r)
		}
	}
	return top, rel
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
