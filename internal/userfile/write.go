package userfile

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// Writing a user's file (the review's revert is the bridge's only writer of one): the file is
// written or removed only inside a workspace folder, judged at write time, and no symbolic link
// is followed below the folder, at any component. A folder swapped for a link to ~/.ssh, or the
// file swapped for a link to ~/.bashrc, is refused with ErrLink, and nothing outside is touched.
// On Unix the walk is openat(2) with O_NOFOLLOW per component from the folder's descriptor, so
// nothing can be swapped between the check and the write (os.Root would follow a link that stays
// inside the folder). A write goes to a temporary file in the same folder, synced, then renamed
// over the file: a full disk or a crash leaves the old file whole, never half of the new one,
// and a hard link to the old file elsewhere keeps its text.

var (
	// ErrLink: a component of the path below its workspace folder is a symbolic link.
	ErrLink = errors.New("the bridge follows no symbolic link when it writes or removes a file")
	// ErrOutside: the path is in no workspace folder.
	ErrOutside = errors.New("the bridge writes and removes files only inside the workspace folders")
)

// WriteIn replaces the regular file path (absolute) with data, or creates it, inside one of
// folders, atomically; the file gets exactly perm (the umask neither widens nor narrows it).
// Its folder must exist. Errors name the path and wrap ErrOutside, ErrLink or ErrSpecial.
func WriteIn(folders []string, path string, data []byte, perm fs.FileMode) error {
	root, names, err := locate(folders, path)
	if err != nil {
		return err
	}
	return writeIn(root, names, path, data, perm)
}

// RemoveIn removes the regular file path (absolute) inside one of folders; a file already gone
// is no error. Errors as WriteIn.
func RemoveIn(folders []string, path string) error {
	root, names, err := locate(folders, path)
	if err != nil {
		return err
	}
	return removeIn(root, names, path)
}

// locate returns the outermost folder (as given or resolved) that holds path lexically, and the
// names from it down to path's last. The outermost: every component below it is walked without
// following links, also a nested folder's own.
func locate(folders []string, path string) (string, []string, error) {
	path = filepath.Clean(path)
	best, rel := "", ""
	for _, f := range folders {
		if !filepath.IsAbs(f) {
			continue
		}
		cands := []string{filepath.Clean(f)}
		if r, err := filepath.EvalSymlinks(f); err == nil && r != cands[0] {
			cands = append(cands, r)
		}
		for _, c := range cands {
			if c == path || !Within(c, path) || best != "" && len(c) >= len(best) {
				continue
			}
			best = c
			rel, _ = filepath.Rel(c, path)
		}
	}
	if best == "" {
		return "", nil, fmt.Errorf("%s: %w", path, ErrOutside)
	}
	return best, strings.Split(rel, string(filepath.Separator)), nil
}

const tempPrefix, tempSuffix = ".claude-ide-bridge-", ".tmp"

// tempName is a fresh name for the temporary file beside the target.
func tempName() string { return tempPrefix + strings.ToLower(rand.Text()[:16]) + tempSuffix }

// IsTemp reports whether name (a base name) is one WriteIn gives its temporary files: a watch
// of the folder can leave out such a file once it is gone (renamed over its target).
func IsTemp(name string) bool {
	return len(name) == len(tempPrefix)+16+len(tempSuffix) && strings.HasPrefix(name, tempPrefix) && strings.HasSuffix(name, tempSuffix)
}

// linkError names the component that is a link.
func linkError(path, at string) error {
	if at == path {
		return fmt.Errorf("%s is a symbolic link: %w", path, ErrLink)
	}
	return fmt.Errorf("%s: %s is a symbolic link: %w", path, at, ErrLink)
}
