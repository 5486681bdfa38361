package userfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The one test of "inside the workspace" for paths a client names (the model's code tools, the
// review's record): judged on the path with every symlink resolved, so that neither an absolute
// path, "..", nor a symlink in the repository reaches ~/.ssh.

// Roots is each absolute folder resolved (symlink-free); folders that are relative or cannot be
// resolved are left out.
func Roots(folders []string) []string {
	var roots []string
	for _, f := range folders {
		if !filepath.IsAbs(f) {
			continue
		}
		if r, err := Resolve(f); err == nil {
			roots = append(roots, r)
		}
	}
	return roots
}

// CleanFolders makes workspace folders from an editor absolute and clean, with symlinks resolved
// where the folder exists (a folder that does not exist yet is kept absolute and clean): the
// lock file, relative tool paths and the CLI's cwd match all compare resolved paths (issue 15
// item 8: workspaceFoldersChanged stored them as sent). An empty entry is dropped.
func CleanFolders(folders []string) []string {
	out := make([]string, 0, len(folders))
	for _, f := range folders {
		if f == "" {
			continue
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		out = append(out, filepath.Clean(abs))
	}
	return out
}

// Inside returns path resolved, and whether it lies in one of roots (as Roots returns them).
func Inside(path string, roots []string) (string, bool) {
	r, err := Resolve(path)
	if err != nil {
		return "", false
	}
	for _, root := range roots {
		if Within(root, r) {
			return r, true
		}
	}
	return "", false
}

// Within reports whether p is root or below it (both clean and absolute).
func Within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Resolve is filepath.EvalSymlinks of path made absolute and clean, also for a path whose last
// components do not exist: its longest existing prefix is resolved and the rest appended (it
// holds no "..": the path was cleaned, and a missing component cannot be a symlink). A dangling
// symlink is an error: where it points is not known.
func Resolve(path string) (string, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	var rest []string
	for p := path; ; {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
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
