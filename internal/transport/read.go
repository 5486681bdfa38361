package transport

import (
	"io"
	"slices"
)

// readMessage reads one whole message, doubling its buffer as it fills: io.ReadAll (the
// library's Read) grows by 1.25x, which copied a 10 MiB openDiff about five times over.
func readMessage(r io.Reader) ([]byte, error) {
	buf := make([]byte, 0, 4<<10)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
