//go:build unix

package stdio

import (
	"errors"
	"io"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
	"testing"
	"time"
)

// blockingPipe returns a pipe whose read end is in blocking mode, as an editor's stdin is.
func blockingPipe(t *testing.T) (r *os.File, w *os.File) {
	t.Helper()
	var fds [2]int
	if err := unix.Pipe(fds[:]); err != nil {
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
	var v int
	rc.Control(func(fd uintptr) { v, _ = unix.FcntlInt(fd, unix.F_GETFL, 0) })
	return v
}

// A pipe on stdin is read through the runtime's poller (no pump goroutine blocked in read(2)),
// its blocking mode put back on Close; Close ends a Read that waits for data at once, also one
// paused between batches.
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
				readBatch = time.Hour // after three small messages the next Read pauses; only Close can end it
			}
			for _, msg := range []string{"hello\n", "again\n", "more\n"} {
				w.Write([]byte(msg))
				n, err := in.Read(buf)
				if err != nil || string(buf[:n]) != msg {
					t.Fatalf("Read = %q, %v", buf[:n], err)
				}
			}
			got := make(chan error, 1)
			go func() {
				_, err := in.Read(buf)
				got <- err
			}()
			want := map[string]string{"waiting": "IO wait", "paused": "select"}[name]
			state := ""
			for deadline := time.Now().Add(5 * time.Second); state == "" && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
				state = readerState()
			}
			in.Close()
			if state != want {
				t.Errorf("the Read waits in state %q, want %q", state, want)
			}
			select {
			case err := <-got:
				if !errors.Is(err, os.ErrClosed) {
					t.Fatalf("Read after Close = %v, want os.ErrClosed", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Close did not end a pending Read")
			}
			if got := flags(t, r); got != before {
				t.Fatalf("stdin's flags after Close: %#x, were %#x", got, before)
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

// TestWaitingReadLeavesThePFree: a Read waiting for the editor parks in the runtime's poller
// ("IO wait"). Blocked in a system call instead, it holds a thread and a P
// until the runtime's monitor takes it back, up to 10 ms later, and every WebSocket message and
// answer waits meanwhile (stdin_unix.go). Decided from the goroutine's state, not by timing.
func TestWaitingReadLeavesThePFree(t *testing.T) {
	r, _ := blockingPipe(t)
	defer func(d time.Duration) { readBatch = d }(readBatch)
	readBatch = 0
	in := newInput(r)
	if in.fdr == nil {
		t.Fatal("a pipe on stdin was not read directly")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		in.Read(make([]byte, 64))
	}()
	state := ""
	for deadline := time.Now().Add(5 * time.Second); state == "" && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		state = readerState()
	}
	in.Close()
	<-done
	if state != "IO wait" {
		t.Fatalf("a Read waiting for stdin is in state %q, want \"IO wait\" (parked in the poller)", state)
	}
}

// readerState returns the state of the goroutine inside fdReader.Read once it waits, or "".
func readerState() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		head, _, _ := strings.Cut(g, "\n")
		if !strings.Contains(g, "(*fdReader).Read") {
			continue
		}
		_, state, _ := strings.Cut(head, "[")
		state, _, _ = strings.Cut(state, "]")
		state, _, _ = strings.Cut(state, ",") // "IO wait, 2 minutes"
		if state == "running" || state == "runnable" {
			return "" // not waiting yet
		}
		return state
	}
	return ""
}

// TestTwoSmallMessagesDoNotPause: an answer that follows two small messages at once (an editor's
// accept right after its showDiff answer, which came right after its closeDiff answer) is read
// without waiting for a batch: only a stream of small messages is batched.
func TestTwoSmallMessagesDoNotPause(t *testing.T) {
	r, w := blockingPipe(t)
	defer func(d time.Duration) { readBatch = d }(readBatch)
	readBatch = time.Hour
	in := newInput(r)
	defer in.Close()
	buf := make([]byte, 64)
	for range 2 {
		w.Write([]byte("{}\n"))
		if n, err := in.Read(buf); err != nil || string(buf[:n]) != "{}\n" {
			t.Fatalf("Read = %q, %v", buf[:n], err)
		}
	}
	got := make(chan string, 1)
	go func() {
		n, _ := in.Read(buf)
		got <- string(buf[:n])
	}()
	for deadline := time.Now().Add(5 * time.Second); readerState() == "" && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond) // until it waits: paused (the bug) or for data
	}
	w.Write([]byte("accept\n"))
	select {
	case s := <-got:
		if s != "accept\n" {
			t.Fatalf("Read = %q", s)
		}
	case <-time.After(5 * time.Second):
		in.Close()
		<-got
		t.Fatal("the message after two small ones waited for a batch")
	}
}
