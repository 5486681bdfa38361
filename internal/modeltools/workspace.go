package modeltools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The model is an attacker here (docs/security.md): the tools read only files inside a
// workspace folder, judged on the path with every symlink resolved, so that neither an absolute
// path, "..", nor a symlink in the repository reaches ~/.ssh. Nothing outside is read, quoted
// or handed to a language server.

// outsideError refuses a path outside the workspace. It names the path as the model gave it and
// nothing else: not where a symlink points, not whether the file exists, never its text.
type outsideError struct{ given string }

func (e *outsideError) Error() string {
	return fmt.Sprintf("%s is outside the workspace folders: the code tools read only files inside them", e.given)
}

// workspace is the folders the tools may read, each resolved (symlink-free).
type workspace struct{ roots []string }

func newWorkspace(folders []string) workspace {
	var w workspace
	for _, f := range folders {
		if !filepath.IsAbs(f) {
			continue
		}
		if r, err := resolve(f); err == nil {
			w.roots = append(w.roots, r)
		}
	}
	return w
}

// inside returns path (absolute) resolved, or an *outsideError when it does not lie inside a
// root.
func (w workspace) inside(path string) (string, error) {
	r, err := resolve(path)
	if err != nil {
		return "", &outsideError{path}
	}
	for _, root := range w.roots {
		if within(root, r) {
			return r, nil
		}
	}
	return "", &outsideError{path}
}

// within reports whether p is root or below it (both clean and absolute).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolve is filepath.EvalSymlinks of a cleaned absolute path, also for a path whose last
// components do not exist: its longest existing prefix is resolved and the rest appended (it
// holds no "..": the path was cleaned, and a missing component cannot be a symlink).
func resolve(path string) (string, error) {
	path = filepath.Clean(path)
	var rest []string
	for p := path; ; {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		// A dangling symlink is not a missing file: where it points is not known to be inside.
		if _, lerr := os.Lstat(p); lerr == nil {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}
