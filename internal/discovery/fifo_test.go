//go:build unix

package discovery

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO named like a lock must not block the listing: `locks` has to return.
func TestListLocksSkipsFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "34567.lock")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	type result struct {
		locks []LockInfo
		err   error
	}
	done := make(chan result, 1)
	go func() {
		l, err := ListLocks([]string{filepath.Dir(fifo)})
		done <- result{l, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(5 * time.Second):
		// Unblock the reader so the goroutine ends, then fail.
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatal("ListLocks blocked on a FIFO")
	}
	if r.err != nil || len(r.locks) != 1 || r.locks[0].ParseErr == nil || r.locks[0].Stale() || r.locks[0].Foreign == "" {
		t.Fatalf("ListLocks = %+v, %v; want one unreadable lock, left alone (not a regular file)", r.locks, r.err)
	}
}
