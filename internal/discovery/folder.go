package discovery

import (
	"path/filepath"
	"strings"
)

// InFolder is the Claude CLI's own rule for which lock file serves a cwd, here so that the bridge
// picks the lock the CLI would (claude-cli-facts.md, Discovery): "A lock matches when
// CLAUDE_CODE_SSE_PORT equals its port, or the CLI's cwd equals a workspace folder or starts with
// folder + "/". The cwd is symlink-resolved; folders are not."
//
// It is lexical on purpose: the CLI compares strings, so the caller resolves dir's symlinks and
// leaves folder as the lock wrote it. It is not a safety check: for "may this path be read" use
// userfile.Inside, which resolves both sides. A folder with a trailing separator ("/") matches
// what lies below it; an empty folder matches nothing.
func InFolder(dir, folder string) bool {
	if folder == "" {
		return false
	}
	return dir == folder || strings.HasPrefix(dir, strings.TrimSuffix(folder, string(filepath.Separator))+string(filepath.Separator))
}

// Resolve is path made absolute (against the current directory) with its symlinks resolved: how
// the CLI names its cwd, so how the bridge names its folders and the files a shell command gives.
// A path that does not exist is an error; "" is the current directory.
func Resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// Serving is the first of locks (newest first, as ListLocks returns them and the CLI reads them)
// that is live and has a workspace folder holding dir by InFolder.
func Serving(locks []LockInfo, dir string) (LockInfo, bool) {
	for _, li := range locks {
		if li.Live() != nil { // the one liveness check (discovery.Live)
			continue
		}
		for _, f := range li.Lock.WorkspaceFolders {
			if InFolder(dir, f) {
				return li, true
			}
		}
	}
	return LockInfo{}, false
}
