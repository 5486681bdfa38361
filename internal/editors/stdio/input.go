package stdio

import (
	"io"
	"os"
	"sync"
)

// input makes a blocking reader (a pipe on stdin) interruptible: Close ends a pending Read at
// once. A read on stdin cannot be cancelled otherwise, and the bridge must stop when the editor
// pid dies or a signal arrives even while the editor keeps the pipe open. On Linux a pipe or
// socket is read directly (fdReader); any other reader by a pump goroutine, which stays blocked
// on it until it returns (the process is about to exit by then).
type input struct {
	fdr *fdReader // reads a pipe or socket on stdin directly (Linux); nil: the pump does

	chunks  chan []byte
	free    chan struct{} // 1-buffered: the reader is done with the last chunk
	errc    chan error
	done    chan struct{}
	once    sync.Once
	rest    []byte
	holding bool // rest is (part of) a chunk the pump waits to reuse
}

func newInput(r io.Reader) *input {
	in := &input{chunks: make(chan []byte), free: make(chan struct{}, 1), errc: make(chan error, 1), done: make(chan struct{})}
	if f, ok := r.(*os.File); ok {
		in.fdr = newFDReader(f, in.done)
	}
	if in.fdr == nil {
		go in.pump(r)
	}
	return in
}

// pump reads into one buffer, reused once the reader has consumed each chunk: an editor
// sending a selection per keystroke must not cost 64 KiB of garbage per message.
func (in *input) pump(r io.Reader) {
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			select {
			case in.chunks <- buf[:n]:
			case <-in.done:
				return
			}
			select {
			case <-in.free:
			case <-in.done:
				return
			}
		}
		if err != nil {
			in.errc <- err
			return
		}
	}
}

func (in *input) Read(p []byte) (int, error) {
	if in.fdr != nil && len(in.rest) == 0 { // rest: Options.Prefix, read first
		return in.fdr.Read(p)
	}
	if len(in.rest) == 0 {
		if in.holding {
			in.holding = false
			in.free <- struct{}{}
		}
		select {
		case in.rest = <-in.chunks:
			in.holding = true
		case err := <-in.errc:
			in.errc <- err // sticky
			return 0, err
		case <-in.done:
			return 0, os.ErrClosed
		}
	}
	n := copy(p, in.rest)
	in.rest = in.rest[n:]
	return n, nil
}

// Close makes pending and later Reads return os.ErrClosed.
func (in *input) Close() error {
	in.once.Do(func() {
		close(in.done)
		if in.fdr != nil {
			in.fdr.Close()
		}
	})
	return nil
}

// closers closes the output and the input together: closing the protocol stream must also
// end the read loop.
type closers struct {
	io.Writer
	out io.Closer
	in  *input
}

func (c closers) Close() error {
	c.in.Close()
	return c.out.Close()
}
