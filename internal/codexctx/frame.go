package codexctx

import (
	"encoding/binary"
	"fmt"
	"io"
)

// MaxRequest bounds a frame read from a client. Codex's requests are a few hundred bytes
// (initialize, ide-context with one path); Codex allows 256 MiB per frame because an IDE's
// answer may carry a big selection, which is our direction, not this one. A 1 MiB cap keeps a
// client from making the bridge hold more than that per connection.
const MaxRequest = 1 << 20

// readFrame reads one frame: a 4-byte little-endian length, then that many bytes (UTF-8 JSON).
// A frame longer than max is an error, read no further: the connection cannot be resynchronised.
func readFrame(r io.Reader, max int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if uint64(n) > uint64(max) {
		return nil, fmt.Errorf("frame of %d bytes, over the %d allowed", n, max)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}

// writeFrame writes b as one frame, header and body in one write.
func writeFrame(w io.Writer, b []byte) error {
	buf := make([]byte, 4, 4+len(b))
	binary.LittleEndian.PutUint32(buf, uint32(len(b)))
	_, err := w.Write(append(buf, b...))
	return err
}
