//go:build unix

package stdio

import (
	"errors"
	"syscall"
)

// processGone reports whether no process has the given pid (kill(pid, 0) fails with ESRCH).
// A process we may not signal (EPERM) still exists.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
