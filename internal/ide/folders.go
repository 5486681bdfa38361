package ide

import (
	"runtime"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

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
