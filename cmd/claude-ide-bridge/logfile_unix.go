//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// openLogFile opens --log-file or --trace for appending: created 0600, never through a symlink
// (O_NOFOLLOW: a link planted at the path cannot redirect the bridge's writes), and an existing
// file's mode tightened to 0600, since what is written there (paths, proposals) is private.
// A path that is not a regular file (a FIFO, a device) is refused.
func openLogFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s (symlinks are not followed): %w", path, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err == nil && fi.Mode().Perm() != 0o600 {
		err = f.Chmod(0o600)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
