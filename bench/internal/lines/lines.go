// Package lines reads newline-terminated messages of any length for the bench programs.
package lines

import (
	"bufio"
	"errors"
)

// Read returns the next line without its newline. A line longer than r's buffer is gathered as
// copies of its pieces and joined once: appending piece by piece would grow a 10 MiB line ~25
// times and put that copying into every number the driver takes.
func Read(r *bufio.Reader) ([]byte, error) {
	var (
		pieces [][]byte
		n      int
	)
	for {
		chunk, err := r.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
		if pieces == nil && err == nil {
			return append([]byte(nil), chunk[:len(chunk)-1]...), nil
		}
		pieces = append(pieces, append([]byte(nil), chunk...))
		n += len(chunk)
		if err == nil {
			line := make([]byte, 0, n)
			for _, p := range pieces {
				line = append(line, p...)
			}
			return line[:n-1], nil
		}
	}
}
