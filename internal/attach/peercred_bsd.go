//go:build darwin || freebsd

package attach

import "golang.org/x/sys/unix"

// sockUID is the peer's uid of the Unix socket fd (LOCAL_PEERCRED).
func sockUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
