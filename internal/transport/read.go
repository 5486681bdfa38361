package transport

import (
	"io"
	"sync/atomic"
)

// bigRead is the size from which a message counts as big: one that reaches it and an eighth of
// the last big message's size (lastBig) is read into a buffer of about that size instead of
// doubling its way there. (A small proposal after a 13 MB one is not given 14 MB.)
const bigRead = 64 << 10

// lastBig is the size of the last big message read by any client.
var lastBig atomic.Int64

// readMessage reads one whole message into a buffer of its own, which nothing writes to again
// (decoded messages alias it). A big message goes into
// fresh memory, whose pages the kernel faults in while the message arrives, overlapping the
// transfer: reading into a reused buffer and copying out at the end put those faults after it
// (~11 ms for 13 MB), and doubling from 4 KiB copied and faulted ~24 MB. Safe for concurrent
// use; on a read error it returns nil and the error.
func readMessage(r io.Reader) ([]byte, error) {
	buf := make([]byte, 0, 4<<10)
	for {
		if len(buf) == cap(buf) {
			more := cap(buf) // double: appending grows big slices by 1.25x
			if lb := int(lastBig.Load()); len(buf) >= bigRead && len(buf) >= lb/8 {
				more = max(more, lb*9/8-len(buf))
			}
			nb := make([]byte, len(buf), len(buf)+more) // not slices.Grow: under -race it also allocates a temporary of that size
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if len(buf) >= bigRead {
				lastBig.Store(int64(len(buf)))
			}
			return buf[:len(buf):len(buf)], nil
		}
		if err != nil {
			return nil, err
		}
	}
}
