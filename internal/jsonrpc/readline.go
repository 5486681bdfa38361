package jsonrpc

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

func (s *ioStream) readLine() ([]byte, error) {
	for { // blank lines are skipped; a last line without a newline is a line
		line, err := s.readLineOnce()
		if (err == nil || err == io.EOF) && len(bytes.TrimSpace(line)) > 0 {
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
			// Drop the rest of this line only: a chunk read up to its newline ends it.
			if errors.Is(err, bufio.ErrBufferFull) {
				err = s.skipLine()
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
			nb := make([]byte, len(buf), c)
			copy(nb, buf)
			buf = nb
		}
		buf = append(buf, chunk...)
		if !more {
			s.lastLong = len(buf)
			return buf[:len(buf):len(buf)], err
		}
	}
}

func (s *ioStream) skipLine() error {
	for {
		_, err := s.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return err
	}
}
