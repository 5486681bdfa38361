package jsonrpc

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
)

func (s *ioStream) readLine() ([]byte, error) {
	for {
		line, err := s.readLineOnce()
		if err == io.EOF && len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return line, nil
	}
}

// maxScratch bounds the scratch buffer a stream keeps between lines.
const maxScratch = 32 << 20

// readLineOnce reads up to and including the next newline. A line longer than the read buffer
// is gathered in the stream's scratch buffer, which the next long line reuses: writing 13 MB
// into fresh memory costs 4-10 ms of page faults here, into used memory ~1 ms. It is copied out
// at its exact size, because the line is kept by the caller, and sealed (Seal): nothing writes
// to it again.
func (s *ioStream) readLineOnce() ([]byte, error) {
	var (
		buf  []byte
		long bool
	)
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(buf)+len(chunk) > s.limit() {
			s.keepScratch(buf)
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
		if !long && !more {
			return bytes.Clone(chunk), err // the common case: the line fits the buffer
		}
		if !long {
			long, buf, s.scratch = true, s.scratch[:0], nil
		}
		if len(buf)+len(chunk) > cap(buf) { // double: appending grows big slices by 1.25x
			buf = slices.Grow(buf, max(len(chunk), cap(buf), 4*len(chunk)))
		}
		buf = append(buf, chunk...)
		if !more {
			line := make([]byte, len(buf))
			copy(line, buf)
			s.keepScratch(buf)
			Seal(line)
			return line, err
		}
	}
}

// keepScratch keeps buf for the next long line unless it grew too big to hold on to.
func (s *ioStream) keepScratch(buf []byte) {
	if cap(buf) > 0 && cap(buf) <= maxScratch {
		s.scratch = buf[:0]
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
