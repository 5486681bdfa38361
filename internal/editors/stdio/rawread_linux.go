package stdio

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// fileReader reads f, which the poller waits on, with a raw read(2). The runtime's syscall
// bookkeeping (entersyscall) wakes its monitor thread whenever the process was idle, and an
// editor's selection flood made that two extra thread switches per message. The read never
// blocks: the fd is non-blocking and the poller waits for data.
func fileReader(f *os.File) func([]byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return f.Read
	}
	return func(p []byte) (int, error) {
		if len(p) == 0 {
			return 0, nil
		}
		var (
			n     uintptr
			errno syscall.Errno
		)
		for {
			err := rc.Read(func(fd uintptr) bool {
				n, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
				return errno != syscall.EAGAIN
			})
			switch {
			case err != nil:
				return 0, err
			case errno == syscall.EINTR:
				continue
			case errno != 0:
				return 0, &os.PathError{Op: "read", Path: f.Name(), Err: errno}
			case n == 0:
				return 0, io.EOF
			}
			return int(n), nil
		}
	}
}
