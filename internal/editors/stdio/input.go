package stdio

import (
	"io"
	"os"
	"sync"
)

// input makes a blocking reader (a pipe on stdin) interruptible: Close ends a pending Read at
// once. A read on stdin cannot be cancelled otherwise, and the bridge must stop when the editor
// pid dies or a signal arrives even while the editor keeps the pipe open. One goroutine stays
// blocked on the underlying reader until it returns; the process is about to exit by then.
type input struct {
	chunks chan []byte
	errc   chan error
	done   chan struct{}
	once   sync.Once
	rest   []byte
}

func newInput(r io.Reader) *input {
	in := &input{chunks: make(chan []byte), errc: make(chan error, 1), done: make(chan struct{})}
	go in.pump(r)
	return in
}

func (in *input) pump(r io.Reader) {
	for {
		buf := make([]byte, 64<<10)
		n, err := r.Read(buf)
		if n > 0 {
			select {
			case in.chunks <- buf[:n]:
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
	if len(in.rest) == 0 {
		select {
		case in.rest = <-in.chunks:
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
	in.once.Do(func() { close(in.done) })
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
