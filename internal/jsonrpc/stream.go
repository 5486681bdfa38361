package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"sync/atomic"
)

// Stream carries whole messages. Read is called from one goroutine only; Write may be called
// concurrently and must write each message atomically.
type Stream interface {
	Read(ctx context.Context) ([]byte, error)
	Write(ctx context.Context, msg []byte) error
	Close() error
}

// MaxFrame bounds one framed message on the stdio channel.
const MaxFrame = 256 << 20

// ErrFrameTooLarge is returned by Read for a frame over MaxFrame; the frame is skipped and the
// stream stays usable.
var ErrFrameTooLarge = errors.New("jsonrpc: frame too large")

// ioStream frames messages over a byte pipe.
type ioStream struct {
	r        *bufio.Reader
	w        io.WriteCloser
	headers  atomic.Bool // LSP Content-Length headers, else newline-delimited JSON; set before Read returns
	detect   bool
	max      int // frame limit: MaxFrame (tests lower it)
	lastLong int // the length of the last line longer than r's buffer (readLineOnce); for the reader only

	turn chan struct{} // 1-buffered: one write at a time
}

func newIOStream(r io.Reader, w io.WriteCloser, headers, detect bool) *ioStream {
	s := &ioStream{r: bufio.NewReaderSize(r, 64<<10), w: w, detect: detect, max: MaxFrame, turn: make(chan struct{}, 1)}
	s.headers.Store(headers)
	return s
}

// NewLineStream frames newline-delimited JSON.
func NewLineStream(r io.Reader, w io.WriteCloser) Stream { return newIOStream(r, w, false, false) }

// NewHeaderStream frames with Content-Length headers.
func NewHeaderStream(r io.Reader, w io.WriteCloser) Stream { return newIOStream(r, w, true, false) }

// NewDetectStream detects the peer's framing from its first byte ('C' for headers, '{' or '['
// for lines; leading white space is skipped) and writes in the same framing. Writes before the
// first message was read use line framing: a server must not speak first.
func NewDetectStream(r io.Reader, w io.WriteCloser) Stream { return newIOStream(r, w, false, true) }

// ErrUnknownFraming is returned when the first byte fits no framing.
var ErrUnknownFraming = errors.New("jsonrpc: unknown framing (want Content-Length headers or newline-delimited JSON)")

func (s *ioStream) Read(ctx context.Context) ([]byte, error) {
	if s.detect {
		if err := s.detectFraming(); err != nil {
			return nil, err
		}
	}
	if s.headers.Load() {
		return s.readHeader()
	}
	return s.readLine()
}

func (s *ioStream) detectFraming() error {
	for {
		b, err := s.r.Peek(1)
		if err != nil {
			return err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			s.r.ReadByte()
			continue
		case 'C', 'c':
			s.headers.Store(true)
		case '{', '[':
		default:
			return fmt.Errorf("%w: first byte %q", ErrUnknownFraming, b[0])
		}
		s.detect = false
		return nil
	}
}

// readHeader reads a frame of the LSP base protocol: headers (textproto's reader, Content-Length
// the one used), a blank line, then Content-Length bytes.
func (s *ioStream) readHeader() ([]byte, error) {
	var length int
	for {
		h, err := textproto.NewReader(s.r).ReadMIMEHeader()
		if err != nil {
			return nil, err
		}
		v := h.Get("Content-Length")
		if v == "" {
			continue // blank lines between frames are tolerated
		}
		if length, err = strconv.Atoi(v); err != nil || length < 0 {
			return nil, fmt.Errorf("jsonrpc: bad Content-Length %q", v)
		}
		break
	}
	if length > s.max {
		if _, err := io.CopyN(io.Discard, s.r, int64(length)); err != nil {
			return nil, err
		}
		return nil, ErrFrameTooLarge
	}
	buf := make([]byte, length)
	if _, err := io.ReadFull(s.r, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// readLine reads the next line that is not blank; a last line without a newline is a line.
func (s *ioStream) readLine() ([]byte, error) {
	for {
		line, err := s.readLineOnce()
		if (err == nil || err == io.EOF) && len(trimSpace(line)) > 0 {
			return line, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readLineOnce reads up to and including the next newline. A line longer than the read buffer
// is gathered into a buffer of its own of about the last long line's size once it reaches an
// eighth of it (doubling until then), which is returned as it is (nothing writes to it again).
// Fresh memory's pages are faulted in while the line arrives; gathering into a reused
// buffer and copying out put those faults after it, on the critical path (~4 ms for 13 MB).
func (s *ioStream) readLineOnce() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(buf)+len(chunk) > s.max {
			for errors.Is(err, bufio.ErrBufferFull) { // drop the rest of this line only
				_, err = s.r.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, ErrFrameTooLarge
		}
		more := errors.Is(err, bufio.ErrBufferFull)
		if buf == nil && !more {
			return bytes.Clone(chunk), err // the common case: the line fits the buffer
		}
		if len(buf)+len(chunk) > cap(buf) { // not append: it grows big slices by 1.25x
			c := max(2*cap(buf), 4*len(chunk))
			if len(buf)+len(chunk) >= s.lastLong/8 { // a small line after a 13 MB one is not given 14 MB
				c = max(c, s.lastLong*9/8)
			}
			buf = append(make([]byte, 0, c), buf...)
		}
		buf = append(buf, chunk...)
		if !more {
			s.lastLong = len(buf)
			return buf[:len(buf):len(buf)], err
		}
	}
}

// Write writes one message. A peer that stops reading a pipe must not hang its callers: the
// write runs on its own goroutine, and Write gives up when ctx ends (the message then still goes
// out, whole, if the peer ever reads again, before any later message).
func (s *ioStream) Write(ctx context.Context, msg []byte) error {
	return s.WritePieces(ctx, net.Buffers{msg})
}

// WritePieces is Write for a message in pieces (PiecesWriter): big pieces are written where they
// are, not copied into one buffer.
func (s *ioStream) WritePieces(ctx context.Context, msg net.Buffers) error {
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	// A JSON message never holds a raw newline, so a line is a message. A small message goes out
	// in one write; a big one is not copied just to add its framing.
	n := 0
	for _, p := range msg {
		n += len(p)
	}
	parts := make(net.Buffers, 0, len(msg)+1)
	if s.headers.Load() {
		parts = append(append(parts, fmt.Appendf(nil, "Content-Length: %d\r\n\r\n", n)), msg...)
	} else {
		parts = append(append(parts, msg...), []byte{'\n'})
	}
	if n < refMin {
		parts = net.Buffers{bytes.Join(parts, nil)}
	}
	done := make(chan error, 1)
	go func() {
		_, err := parts.WriteTo(s.w)
		<-s.turn
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("jsonrpc: peer is not reading: %w", ctx.Err())
	}
}

func (s *ioStream) Close() error { return s.w.Close() }

// Buffered reports whether more than white space was read past the last message returned (for
// Conn.Latest). For the reader's goroutine only.
func (s *ioStream) Buffered() bool {
	b, _ := s.r.Peek(s.r.Buffered())
	return len(trimSpace(b)) > 0
}
