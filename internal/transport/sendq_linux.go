package transport

import (
	"net"
	"syscall"
	"unsafe"
)

const siocoutq = 0x5411 // SIOCOUTQ (= TIOCOUTQ): bytes not yet acknowledged by the peer

// sendQueue tells whether conn's kernel send queue is empty, or returns nil when it cannot.
func sendQueue(conn net.Conn) func() bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return func() bool {
		var n int32
		var errno syscall.Errno
		// Raw: an ioctl that never blocks need not tell the scheduler (see stdio's raw read).
		err := rc.Control(func(fd uintptr) {
			_, _, errno = syscall.RawSyscall(syscall.SYS_IOCTL, fd, siocoutq, uintptr(unsafe.Pointer(&n)))
		})
		return err == nil && errno == 0 && n == 0
	}
}
