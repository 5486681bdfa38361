package discovery

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
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
	if err := AgentDirSafe(dir); err != nil {
		return "", err
	}
	return writeAtomic(dir, "."+name, filepath.Join(dir, name), data)
}

// AgentDirSafe reports whether dir, an existing folder, is one WriteAgentFile writes in (nil),
// else why not (ErrUnsafeDir). Its parent may be a symlink: dotfile setups link ~/.qwen.
func AgentDirSafe(dir string) error {
	if _, err := OwnDir(dir, DirRule{Refuse: 0o022}); err != nil {
		return err
	}
	_, err := OwnDir(filepath.Dir(dir), DirRule{Refuse: 0o022, Follow: true})
	return err
}

// AgentFile is one discovery file of another agent's CLI found in its folder (AgentFiles).
type AgentFile struct {
	Path      string
	PID, Port int         // from its name; PID from its "ppid" when the name has none (Qwen)
	Mode      fs.FileMode // permission bits
	Owner     int         // its owner's uid, -1 where unknown (Windows)
	Bridge    bool        // written by claude-ide-bridge (its "bridge" field)
	Workspace string      // its "workspacePath": the folders it serves, joined by os.PathListSeparator
	// PIDAlive and PortAnswering: its pid runs, something answers on 127.0.0.1:Port.
	PIDAlive, PortAnswering bool
}

// Live reports whether a CLI reading f would find a server: its pid runs or its port answers.
func (f AgentFile) Live() bool { return f.PIDAlive || f.PortAnswering }

// AgentFiles lists the regular files of dir that name accepts (it returns the pid, 0 for none,
// and the port its name holds), for SweepAgentFiles and `claude-ide-bridge doctor`.
func AgentFiles(dir string, name func(string) (pid, port int, ok bool)) []AgentFile {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []AgentFile
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
		f := AgentFile{Path: p, PID: pid, Port: port, Mode: fi.Mode().Perm(), Owner: -1}
		if uid, ok := FileOwner(fi); ok {
			f.Owner = uid
		}
		var c struct {
			Bridge string `json:"bridge"`
			PPID   int    `json:"ppid"`
			WS     string `json:"workspacePath"`
		}
		if b, err := userfile.Read(p, maxLockSize); err == nil && json.Unmarshal(b, &c) == nil {
			f.Bridge, f.Workspace = c.Bridge == BridgeMarker, c.WS
			if f.PID == 0 {
				f.PID = c.PPID
			}
		}
		f.PIDAlive = f.PID > 0 && pidAlive(f.PID)
		f.PortAnswering = portAnswering(port)
		out = append(out, f)
	}
	return out
}

// SweepAgentFiles removes from dir the discovery files of bridges that died without removing
// them (SIGKILL): a regular file of this user named by name (which also returns the pid and port
// the name holds), written by claude-ide-bridge (its "bridge" field), whose pid is dead and whose
// port nothing answers. A bridge that outlived its editor keeps the editor's pid in the name but
// still answers on its port, so its file stays. Another program's file is never touched.
func SweepAgentFiles(dir string, name func(string) (pid, port int, ok bool)) (removed []string) {
	for _, f := range AgentFiles(dir, name) {
		if (f.Owner != -1 && f.Owner != os.Geteuid()) || !f.Bridge || f.Live() {
			continue
		}
		if os.Remove(f.Path) == nil {
			removed = append(removed, f.Path)
		}
	}
	return removed
}
