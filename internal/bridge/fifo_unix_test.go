//go:build unix

package bridge_test

import (
	"os"
	"syscall"
	"testing"
)

// makeFIFO creates a named pipe at path; the cleanup releases a reader stuck on it, if any.
func makeFIFO(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
}
