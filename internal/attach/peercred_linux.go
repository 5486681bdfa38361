package attach

import "golang.org/x/sys/unix"

// sockUID is the peer's uid of the Unix socket fd (SO_PEERCRED).
func sockUID(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
