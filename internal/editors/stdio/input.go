package stdio

import (
	"io"
	"os"
	"sync"
	"time"
)

// input makes a blocking reader (a pipe on stdin) interruptible: Close ends a pending Read at
// once. A read on stdin cannot be cancelled otherwise, and the bridge must stop when the editor
// pid dies or a signal arrives even while the editor keeps the pipe open. A pipe or socket is
// read through the runtime's poller (see f); any other reader by a pump goroutine, which stays
// blocked on it until it returns (the process is about to exit by then).
type input struct {
	// f is set when the reader is a pipe or socket the runtime's poller can wait on: then Read
	// reads it directly and Close interrupts it with a deadline. That saves the pump's two
	// goroutine hand-offs and a thread blocked in read(2) per message, which made an editor's
	// selection flood cost several thread wake-ups per update.
	f       *os.File
	read    func([]byte) (int, error) // reads f
	restore func()                    // undoes what pollable changed; called once reading ends

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
		in.f, in.restore = pollable(f)
	}
	if in.f != nil {
		in.read = fileReader(in.f)
	}
	if in.f == nil {
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
	if in.f != nil {
		n, err := in.read(p)
		if err != nil {
			// The stream ends here (the reader stops at the first error), and only now is no
			// read in progress that a change of the file's mode could make block.
			if in.restore != nil {
				in.restore()
				in.restore = nil
			}
			select {
			case <-in.done:
				return n, os.ErrClosed
			default:
			}
		}
		return n, err
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
		if in.f != nil {
			in.f.SetReadDeadline(time.Unix(1, 0)) // ends a pending Read now
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
