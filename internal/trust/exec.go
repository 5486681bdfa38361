package trust

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// ErrUnsafeProgram is wrapped by Executable's refusals.
var ErrUnsafeProgram = errors.New("unsafe program")

// Executable finds the program of a command the bridge is about to run (a language server) and
// returns its path with symlinks resolved, the one to run. A bare name is looked up on the PATH
// given (os.Getenv("PATH") when path is ""), skipping relative entries ("", ".", "bin") and
// entries inside a workspace folder; a name with a separator is taken as is, a relative one
// against the current directory. The program found is refused when it lies inside a workspace
// folder, or when it or a folder above it can be written by a user other than this one and
// root (unix: owner and mode bits; a sticky folder such as /tmp is safe above a program of
// ours). Trust does not lift these rules: a trusted workspace is trusted to be read by its
// servers, not to replace them.
func Executable(name, path string, workspace []string) (string, error) {
	_, real, err := find(name, path, workspace)
	return real, err
}

// LookPath is Executable's search and checks, answering the path as found rather than resolved:
// the name to show and to pass as argv[0] (rustup's proxies are symlinks to rustup that read
// their name from it).
func LookPath(name, path string, workspace []string) (string, error) {
	found, _, err := find(name, path, workspace)
	return found, err
}

func find(name, path string, workspace []string) (found, real string, err error) {
	if name == "" {
		return "", "", fmt.Errorf("%w: empty command", ErrUnsafeProgram)
	}
	roots := userfile.CleanFolders(workspace)
	if strings.ContainsRune(name, filepath.Separator) || strings.ContainsRune(name, '/') {
		abs, err := filepath.Abs(name)
		if err != nil {
			return "", "", err
		}
		if !isExecutable(abs) {
			return "", "", fmt.Errorf("%s: not an executable file", name)
		}
		found = abs
	} else {
		if path == "" {
			path = os.Getenv("PATH")
		}
		for _, dir := range filepath.SplitList(path) {
			if !usableDir(dir, roots) {
				continue
			}
			if p := filepath.Join(dir, exeName(name)); isExecutable(p) {
				found = p
				break
			}
		}
		if found == "" {
			return "", "", fmt.Errorf("%s: not found on $PATH outside the workspace (relative entries and entries inside the workspace are not searched)", name)
		}
	}
	real, err = filepath.EvalSymlinks(found)
	if err != nil {
		return "", "", err
	}
	for _, r := range roots {
		if userfile.Within(r, real) {
			return "", "", fmt.Errorf("%w: %s is inside the workspace %s: a program is never taken from the workspace", ErrUnsafeProgram, real, r)
		}
	}
	if err := writableByOthers(real); err != nil {
		return "", "", fmt.Errorf("%w: %s: %v", ErrUnsafeProgram, real, err)
	}
	return found, real, nil
}

// CleanPath is path (a PATH value) without relative entries and entries inside the workspace:
// the PATH a language server is started with, so that what it runs by name is not the
// workspace's either.
func CleanPath(path string, workspace []string) string {
	roots := userfile.CleanFolders(workspace)
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		if usableDir(dir, roots) {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// usableDir reports whether a PATH entry may be searched: absolute and outside the workspace
// (resolved).
func usableDir(dir string, roots []string) bool {
	if dir == "" || !filepath.IsAbs(dir) {
		return false
	}
	real := filepath.Clean(dir)
	if r, err := filepath.EvalSymlinks(real); err == nil {
		real = r
	}
	for _, r := range roots {
		if userfile.Within(r, real) {
			return false
		}
	}
	return true
}
