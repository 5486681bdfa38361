// Package lines reads newline-terminated messages of any length for the bench programs.
package lines

import (
	"bufio"
	"errors"
)

// Reader reads lines from r. A line longer than r's buffer is gathered into one buffer of about
// the last long line's size, which is returned as it is: gathering pieces and joining them, or
// appending (Go grows big slices by 1.25x, ~25 times for 10 MiB), put copies and fresh-page
// faults of the program's own into every openDiff number. Not for concurrent use.
type Reader struct {
	r    *bufio.Reader
	last int // the length of the last long line
}

// NewReader returns a Reader reading from r.
func NewReader(r *bufio.Reader) *Reader { return &Reader{r: r} }

// Read returns the next line without its newline; it is the caller's to keep.
func (lr *Reader) Read() ([]byte, error) {
	var line []byte
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
		if line == nil && err == nil {
			return append([]byte(nil), chunk[:len(chunk)-1]...), nil
		}
		if len(line)+len(chunk) > cap(line) {
			nl := make([]byte, len(line), max(2*cap(line), 4*len(chunk), lr.last*9/8))
			copy(nl, line)
			line = nl
		}
		line = append(line, chunk...)
		if err == nil {
			lr.last = len(line)
			return line[: len(line)-1 : len(line)-1], nil
		}
	}
}
