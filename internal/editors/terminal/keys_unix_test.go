//go:build unix

package terminal

import (
	"os"

	"golang.org/x/sys/unix"
)

// termState reports whether f's terminal echoes and edits lines (ECHO and ICANON set).
func termState(f *os.File) (bool, error) {
	tio, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios)
	if err != nil {
		return false, err
	}
	return tio.Lflag&unix.ECHO != 0 && tio.Lflag&unix.ICANON != 0, nil
}
