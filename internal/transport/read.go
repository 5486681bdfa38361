package transport

import (
	"io"
	"slices"
	"sync/atomic"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// maxScratch bounds the read buffer kept between messages.
const maxScratch = 32 << 20

// scratch is the process's reusable read buffer, one reader's at a time: a reader takes it
// (swaps in nil), and one that finds it taken reads into a fresh buffer. The slice a stored
// pointer points to is never changed, so the pointer may be read while another reader owns it.
var scratch atomic.Pointer[[]byte]

// readMessage reads one whole message. It reads into the scratch buffer, which the next
// message reuses: writing 13 MB into fresh memory costs 4-10 ms of page faults here, into used
// memory ~1 ms. The message is copied out at its exact size (the caller keeps it, and decoded
// messages alias it) and sealed (jsonrpc.Seal): nothing writes to it again. Safe for concurrent use; on a read error
// it returns nil and the error.
func readMessage(r io.Reader) ([]byte, error) {
	kept := scratch.Swap(nil)
	var buf []byte
	if kept != nil {
		buf = (*kept)[:0]
	} else {
		buf = make([]byte, 0, 4<<10)
	}
	for {
		if len(buf) == cap(buf) { // double: appending grows big slices by 1.25x
			buf = slices.Grow(buf, cap(buf))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			msg := make([]byte, len(buf))
			copy(msg, buf)
			putScratch(kept, buf)
			jsonrpc.Seal(msg)
			return msg, nil
		}
		if err != nil {
			putScratch(kept, buf)
			return nil, err
		}
	}
}

// putScratch offers buf (grown from *kept, or fresh if kept is nil) as the scratch buffer. The
// bigger of it and one another reader put back meanwhile is kept.
func putScratch(kept *[]byte, buf []byte) {
	if cap(buf) > maxScratch {
		return
	}
	if kept == nil || cap(*kept) != cap(buf) {
		b := buf[:0]
		kept = &b
	}
	for {
		old := scratch.Load()
		if old != nil && cap(*old) >= cap(buf) || scratch.CompareAndSwap(old, kept) {
			return
		}
	}
}
