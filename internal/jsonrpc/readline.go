package jsonrpc

import (
	"bufio"
	"bytes"
	"errors"
	"io"
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

// readLineOnce reads up to and including the next newline. A line longer than the read buffer
// is gathered as copies of its pieces and joined once at its exact size: appending piece by
// piece grows a 10 MiB line about 25 times (by 1.25x), copying it ~5 times over.
func (s *ioStream) readLineOnce() ([]byte, error) {
	var (
		pieces [][]byte
		n      int
	)
	for {
		chunk, err := s.r.ReadSlice('\n')
		if n+len(chunk) > s.limit() {
			// Drop the rest of this line only: a chunk read up to its newline ends it.
			if errors.Is(err, bufio.ErrBufferFull) {
				err = s.skipLine()
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, ErrFrameTooLarge
		}
		if pieces == nil && !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.Clone(chunk), err // the common case: the line fits the buffer
		}
		pieces = append(pieces, bytes.Clone(chunk))
		n += len(chunk)
		if !errors.Is(err, bufio.ErrBufferFull) {
			line := make([]byte, 0, n)
			for _, p := range pieces {
				line = append(line, p...)
			}
			return line, err
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
