package discovery

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// WriteAgentFile publishes data as dir/name for another agent's CLI (Gemini CLI's
// $TMPDIR/gemini/ide, Qwen Code's ~/.qwen/ide: internal/companion). The file holds a token, so
// it is written as a lock is (0600, through a temporary file renamed over the target), but the
// folder is held to a stricter rule than our own lock dir, because it may sit in a shared
// $TMPDIR: dir and its parent are created 0700 when missing, and an existing one that is a
// symlink (dir only), not a directory, owned by another user, or writable by group or others is
// refused with ErrUnsafeDir. It is never chmod-ed: another program made it, and a folder others
// could write may already hold what they planted.
func WriteAgentFile(dir, name string, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("discovery: %s: %w", dir, err)
	}
	if err := agentDirSafe(dir, true); err != nil {
		return "", err
	}
	if err := agentDirSafe(filepath.Dir(dir), false); err != nil {
		return "", err
	}
	return writeAtomic(dir, "."+name, filepath.Join(dir, name), data)
}

// agentDirSafe checks one folder for WriteAgentFile; last is the folder the file goes in (its
// parent may be a symlink: dotfile setups link ~/.qwen).
func agentDirSafe(dir string, last bool) error {
	var fi fs.FileInfo
	var err error
	if last {
		fi, err = os.Lstat(dir)
	} else {
		fi, err = os.Stat(dir)
	}
	if err != nil {
		return fmt.Errorf("discovery: %s: %w", dir, err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symlink", ErrUnsafeDir, dir)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory", ErrUnsafeDir, dir)
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%w: %s is owned by uid %d, not %d", ErrUnsafeDir, dir, uid, os.Geteuid())
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: %s may be written by others (mode %v)", ErrUnsafeDir, dir, fi.Mode().Perm())
	}
	return nil
}

// SweepAgentFiles removes from dir the discovery files of bridges that died without removing
// them (SIGKILL): a regular file of this user named by name (which also returns the pid and port
// the name holds), written by claude-ide-bridge (its "bridge" field), whose pid is dead and whose
// port nothing answers. A bridge that outlived its editor keeps the editor's pid in the name but
// still answers on its port, so its file stays. Another program's file is never touched.
func SweepAgentFiles(dir string, name func(string) (pid, port int, ok bool)) (removed []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		pid, port, ok := name(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if uid, ok := fileOwner(fi); ok && uid != os.Geteuid() {
			continue
		}
		b, err := os.ReadFile(p)
		var f struct {
			Bridge string `json:"bridge"`
		}
		if err != nil || len(b) > maxLockSize || json.Unmarshal(b, &f) != nil || f.Bridge != BridgeMarker {
			continue
		}
		if pidAlive(pid) || portAnswering(port) {
			continue
		}
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}
