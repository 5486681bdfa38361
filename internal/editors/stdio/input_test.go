//go:build unix

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

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	rc.Control(func(fd uintptr) {
		v, _, _ := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		flags = int(v)
	})
	return flags&syscall.O_NONBLOCK != 0
}

// Stdin is read through the poller (no goroutine blocked in read(2)); Close still ends a
// pending Read at once, and stdin is left in blocking mode again for whoever shares it.
func TestInputPolledStdin(t *testing.T) {
	r, w := blockingPipe(t)
	in := newInput(r)
	if in.f == nil {
		t.Fatal("a blocking pipe was not made pollable")
	}
	w.Write([]byte("hello\n"))
	buf := make([]byte, 64)
	n, err := in.Read(buf)
	if err != nil || string(buf[:n]) != "hello\n" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if !nonblocking(t, r) {
		t.Fatal("stdin is not in non-blocking mode while being read")
	}
	got := make(chan error, 1)
	go func() {
		_, err := in.Read(buf)
		got <- err
	}()
	time.Sleep(10 * time.Millisecond) // let it block (the test passes either way)
	in.Close()
	select {
	case err := <-got:
		if !errors.Is(err, os.ErrClosed) {
			t.Fatalf("Read after Close = %v, want os.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end a pending Read")
	}
	if nonblocking(t, r) {
		t.Fatal("stdin left in non-blocking mode after reading ended")
	}
}

func TestInputPolledEOF(t *testing.T) {
	r, w := blockingPipe(t)
	in := newInput(r)
	defer in.Close()
	w.Write([]byte("x"))
	w.Close()
	data, err := io.ReadAll(readerFunc(in.Read))
	if err != nil || string(data) != "x" {
		t.Fatalf("ReadAll = %q, %v", data, err)
	}
	if nonblocking(t, r) {
		t.Fatal("stdin left in non-blocking mode after EOF")
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
