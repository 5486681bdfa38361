package stdio

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// pipeSize is the kernel buffer asked for each stdio pipe: the unprivileged maximum
// (/proc/sys/fs/pipe-max-size) on a default Linux.
const pipeSize = 1 << 20

// growPipe enlarges the kernel buffer of a pipe from the default 64 KiB, so that a 10 MiB file
// text crosses in a few dozen wake-ups of each side instead of ~200 (each costs tens of µs on a
// VM). Anything else (a terminal, a file, a lower limit) is left as it is.
func growPipe(v any) {
	f, ok := v.(interface {
		SyscallConn() (syscall.RawConn, error)
	})
	if !ok {
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize) })
}
