//go:build linux || darwin || freebsd

package attach

import "net"

// peerUID is the uid of the process at the other end of c, as the kernel gives it (sockUID).
func peerUID(c *net.UnixConn) (int, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid, serr := -1, error(nil)
	if err := rc.Control(func(fd uintptr) { uid, serr = sockUID(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, serr
}
