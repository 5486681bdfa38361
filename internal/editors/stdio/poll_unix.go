//go:build unix

package stdio

import (
	"os"
	"syscall"
	"time"
)

// pollable returns a file reading what f reads that the runtime's poller waits on, or nil.
// A file that already is (os.Pipe) is used as is. Stdin inherited from the editor is a blocking
// pipe or socket: it is duplicated and switched to non-blocking mode, and restore switches the
// mode back and closes the duplicate (the flag belongs to the open file, which stdin shares, so
// it must not outlive us). A terminal or regular file is left alone.
func pollable(f *os.File) (*os.File, func()) {
	if f.SetReadDeadline(time.Time{}) == nil {
		return f, nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, nil
	}
	fd := -1
	rc.Control(func(u uintptr) {
		var st syscall.Stat_t
		if syscall.Fstat(int(u), &st) != nil {
			return
		}
		if m := st.Mode & syscall.S_IFMT; m != syscall.S_IFIFO && m != syscall.S_IFSOCK {
			return
		}
		if d, err := syscall.Dup(int(u)); err == nil {
			fd = d
		}
	})
	if fd < 0 {
		return nil, nil
	}
	syscall.CloseOnExec(fd)
	if syscall.SetNonblock(fd, true) != nil {
		syscall.Close(fd)
		return nil, nil
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	restore := func() {
		if rc, err := nf.SyscallConn(); err == nil {
			rc.Control(func(u uintptr) { syscall.SetNonblock(int(u), false) })
		}
		nf.Close()
	}
	if nf.SetReadDeadline(time.Time{}) != nil {
		restore()
		return nil, nil
	}
	return nf, restore
}
