//go:build linux

package stdio

import (
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// blockingPipe returns a pipe whose read end is in blocking mode, as an editor's stdin is.
func blockingPipe(t *testing.T) (r *os.File, w *os.File) {
	t.Helper()
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "editor")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

func flags(t *testing.T, f *os.File) int {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v uintptr
	rc.Control(func(fd uintptr) { v, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0) })
	return int(v)
}

// A pipe on stdin is read directly (no pump goroutine blocked in read(2)), its mode untouched;
// Close ends a Read that waits for data at once, also one paused between batches.
func TestInputReadsPipeDirectly(t *testing.T) {
	for _, name := range []string{"waiting", "paused"} {
		t.Run(name, func(t *testing.T) {
			r, w := blockingPipe(t)
			before := flags(t, r)
			in := newInput(r)
			if in.fdr == nil {
				t.Fatal("a pipe on stdin was not read directly")
			}
			buf := make([]byte, 64)
			if name == "waiting" {
				defer func(d time.Duration) { readBatch = d }(readBatch)
				readBatch = 0
			} else {
				defer func(d time.Duration) { readBatch = d }(readBatch)
				readBatch = time.Hour // the next Read pauses; only Close can end it
			}
			w.Write([]byte("hello\n"))
			n, err := in.Read(buf)
			if err != nil || string(buf[:n]) != "hello\n" {
				t.Fatalf("Read = %q, %v", buf[:n], err)
			}
			if got := flags(t, r); got != before {
				t.Fatalf("stdin's flags changed: %#x, were %#x", got, before)
			}
			got := make(chan error, 1)
			go func() {
				_, err := in.Read(buf)
				got <- err
			}()
			time.Sleep(10 * time.Millisecond) // let it wait (the test passes either way)
			in.Close()
			select {
			case err := <-got:
				if !errors.Is(err, os.ErrClosed) {
					t.Fatalf("Read after Close = %v, want os.ErrClosed", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Close did not end a pending Read")
			}
		})
	}
}

// Messages written while the reader pauses are all read, then the end of the stream.
func TestInputDirectEOF(t *testing.T) {
	r, w := blockingPipe(t)
	in := newInput(r)
	defer in.Close()
	go func() {
		for range 100 {
			w.Write([]byte("x"))
		}
		w.Close()
	}()
	data, err := io.ReadAll(readerFunc(in.Read))
	if err != nil || len(data) != 100 {
		t.Fatalf("ReadAll = %d bytes, %v", len(data), err)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
