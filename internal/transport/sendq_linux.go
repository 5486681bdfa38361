package transport

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// sendQueue tells whether conn's kernel send queue is empty (SIOCOUTQ: bytes not yet
// acknowledged by the peer), or returns nil when it cannot. A selection is written by the caller
// itself only when this is empty, which saves the writer goroutine's wake-up: in the flood (1000
// updates/s to 16 clients) that was about a fifth of the bridge's CPU (docs/performance.md).
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
		n, qerr := -1, error(nil)
		err := rc.Control(func(fd uintptr) { n, qerr = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ) })
		return err == nil && qerr == nil && n == 0
	}
}
