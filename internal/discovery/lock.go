package discovery

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Lock is the JSON content of <dir>/<port>.lock as the Claude Code CLI reads it.
// The port is not in the file: the CLI takes it from the file name.
type Lock struct {
	PID              int      `json:"pid"`
	WorkspaceFolders []string `json:"workspaceFolders"`
	IDEName          string   `json:"ideName"`
	Transport        string   `json:"transport"` // always "ws"
	AuthToken        string   `json:"authToken"`
	RunningInWindows bool     `json:"runningInWindows,omitempty"`
	// Bridge is BridgeMarker in locks claude-ide-bridge writes. The CLI ignores unknown
	// fields; ListLocks uses it to decide which locks are ours to clean up.
	Bridge string `json:"bridge,omitempty"`
}

// Dir returns the directory this process should write its lock file in:
// $CLAUDE_CONFIG_DIR/ide when that is set and non-empty, else ~/.claude/ide.
func Dir() (string, error) { return dirFor(os.Getenv("CLAUDE_CONFIG_DIR"), os.UserHomeDir) }

// dirFor is Dir with $CLAUDE_CONFIG_DIR and the home directory given (tests give their own, so
// they need not change the process's environment).
func dirFor(configDir string, userHome func() (string, error)) (string, error) {
	if configDir != "" {
		return filepath.Join(configDir, "ide"), nil
	}
	home, err := userHome()
	if err != nil {
		return "", fmt.Errorf("discovery: lock dir: %w", err)
	}
	return filepath.Join(home, ".claude", "ide"), nil
}

// Dirs returns every directory the CLI scans for lock files: Dir(), plus ~/.claude/ide
// when CLAUDE_CONFIG_DIR is set (the CLI scans both). Duplicates are dropped.
func Dirs() []string { return dirsFor(os.Getenv("CLAUDE_CONFIG_DIR"), os.UserHomeDir) }

// dirsFor is Dirs with $CLAUDE_CONFIG_DIR and the home directory given, like dirFor.
func dirsFor(configDir string, userHome func() (string, error)) []string {
	var dirs []string
	add := func(d string) {
		d = filepath.Clean(d)
		for _, have := range dirs {
			if have == d {
				return
			}
		}
		dirs = append(dirs, d)
	}
	if d, err := dirFor(configDir, userHome); err == nil {
		add(d)
	}
	if home, err := userHome(); err == nil {
		add(filepath.Join(home, ".claude", "ide"))
	}
	return dirs
}

// ResolveFolders makes each folder absolute and resolves its symlinks. The CLI compares
// its symlink-resolved cwd against the folders as written, so a lock must hold real paths.
// A folder that does not exist is an error naming it.
func ResolveFolders(folders []string) ([]string, error) {
	out := make([]string, 0, len(folders))
	for _, f := range folders {
		real, err := Resolve(f)
		if err != nil {
			return nil, fmt.Errorf("discovery: workspace folder %q: %w", f, err)
		}
		out = append(out, real)
	}
	return out, nil
}

// WriteLock publishes l as <dir>/<port>.lock and returns that path.
//
// dir is created with mode 0700. An existing dir that is a symlink or owned by another
// user is refused with ErrUnsafeDir; one with looser permissions is chmod-ed to 0700.
// The file is written to a temporary name in dir (not ending in .lock, so the CLI never
// reads it half-written), made 0600, synced and renamed over the target. The rename
// replaces a symlink at the target rather than writing through it.
//
// Transport is always written as "ws". A zero PID becomes this process's pid; nil
// WorkspaceFolders are written as []. An empty AuthToken is an error.
func WriteLock(dir string, port int, l Lock) (path string, err error) {
	if port < 1 || port > 65535 {
		return "", fmt.Errorf("discovery: lock port %d out of range", port)
	}
	if l.AuthToken == "" {
		return "", errors.New("discovery: lock has no auth token")
	}
	if l.PID == 0 {
		l.PID = os.Getpid()
	}
	if l.WorkspaceFolders == nil {
		l.WorkspaceFolders = []string{}
	}
	l.Transport = "ws"
	data, err := json.Marshal(l)
	if err != nil {
		return "", fmt.Errorf("discovery: encode lock: %w", err)
	}

	if err := ensureDir(dir); err != nil {
		return "", err
	}
	target := filepath.Join(dir, strconv.Itoa(port)+".lock")
	if fi, err := os.Lstat(target); err == nil && fi.IsDir() {
		return "", fmt.Errorf("%w: lock path %s is a directory", ErrUnsafeDir, target)
	}

	if _, err := writeTemp(dir, "."+strconv.Itoa(port), target, data, "lock", true); err != nil {
		return "", err
	}
	syncDir(dir)
	return target, nil
}

// ensureDir creates dir as 0700 or makes an existing one so (OwnDir). Only the last element is
// checked: a symlinked ~/.claude (dotfile setups) is normal.
func ensureDir(dir string) error {
	fi, err := OwnDir(dir, DirRule{Create: true, Tighten: true})
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return removePlanted(dir)
	}
	return nil
}

// removePlanted runs after a group- or world-writable lock dir was tightened to 0700: anything
// in it owned by another user was planted while it was open (issue 15 item 7: `env` then printed
// the planted port). Such files and symlinks are removed (they are not ours and the CLI would
// trust them); a planted directory cannot be removed safely, so the lock dir is refused.
// The user's own files stay.
func removePlanted(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("discovery: lock dir: %w", err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		uid, ok := FileOwner(fi)
		if !ok || uid == os.Geteuid() {
			continue
		}
		if fi.IsDir() {
			return fmt.Errorf("%w: %s holds %s, a directory of uid %d planted while it was writable by others", ErrUnsafeDir, dir, e.Name(), uid)
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: cannot remove %s of uid %d: %v", ErrUnsafeDir, p, uid, err)
		}
	}
	return nil
}

// syncDir makes the rename durable. Best effort: the lock is valid without it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// RemoveLock deletes a lock file. A file that is already gone is not an error.
func RemoveLock(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("discovery: remove lock: %w", err)
	}
	return nil
}
