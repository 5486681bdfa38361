//go:build unix

package discovery

import (
	"errors"
	"io/fs"
	"syscall"
)

// FileOwner returns the uid owning fi, and false where the platform does not say (Windows).
func FileOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// pidAlive reports whether a process with this pid exists. EPERM means it exists
// but belongs to someone else, which still counts as alive.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
