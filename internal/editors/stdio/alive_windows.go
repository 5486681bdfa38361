//go:build windows

package stdio

import (
	"errors"
	"syscall"
)

const (
	processQueryLimitedInformation = 0x1000 // PROCESS_QUERY_LIMITED_INFORMATION
	stillActive                    = 259    // STILL_ACTIVE
	errorInvalidParameter          = syscall.Errno(87)
)

// processGone reports whether no running process has the given pid: OpenProcess refuses an
// unknown pid with ERROR_INVALID_PARAMETER, and an exited one that is still referenced has an
// exit code other than STILL_ACTIVE. A process we may not open (access denied) still exists.
func processGone(pid int) bool {
	h, err := syscall.OpenProcess(processQueryLimitedInformation, false, uint32(pid))
	if err != nil {
		return errors.Is(err, errorInvalidParameter)
	}
	defer syscall.CloseHandle(h)
	var code uint32
	if err := syscall.GetExitCodeProcess(h, &code); err != nil {
		return false
	}
	return code != stillActive
}
