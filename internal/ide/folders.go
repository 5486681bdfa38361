package ide

import (
	"path/filepath"
	"runtime"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

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

// maxPID bounds an editor's pid: Linux's PID_MAX_LIMIT (2^22); macOS and the BSDs stay far
// below; Windows process ids are 32-bit.
func maxPID() int64 {
	if runtime.GOOS == "windows" {
		return 1<<32 - 1
	}
	return 1 << 22
}

// CheckPID refuses an initialize pid outside the range of real pids (issue 15 item 8: pid 2^62
// was taken, and written to the lock). 0 means "not given".
func CheckPID(pid int) error {
	if pid < 0 || int64(pid) > maxPID() {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: "pid" %d is not a process id (0 < pid <= %d)`, pid, maxPID())
	}
	return nil
}
