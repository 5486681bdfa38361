//go:build windows

package main

import "os"

// openLogFile opens --log-file or --trace for appending. Windows has no O_NOFOLLOW nor Unix
// modes: a plain open (the file's ACL is inherited from its folder).
func openLogFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
}
