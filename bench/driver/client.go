package main

import (
	"context"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/claudews"
)

// seen is one selection_changed as a client received it.
type seen struct {
	seq int
	at  time.Time // when the client's ws.Read returned it
	rx  time.Time // when the kernel received it (the sidecar's write on loopback); zero if unknown
}

// claude is one Claude-side connection; the driver's selections (numbered by selectionLine) go
// to sel.
type claude struct {
	*claudews.Conn
	sel chan seen
}

func dialClaude(ctx context.Context, port int, token string) (*claude, error) {
	c := &claude{sel: make(chan seen, 1<<15)}
	conn, err := claudews.Dial(ctx, port, token, func(method string, f claudews.Frame) {
		if method != "selection_changed" {
			return
		}
		if seq, ok := selectionSeq(f.Msg); ok {
			select {
			case c.sel <- seen{seq, f.At, f.Rx}:
			default: // a phase that does not drain loses samples, never stalls the reader
			}
		}
	})
	c.Conn = conn
	return c, err
}

// drain forgets selections received so far.
func (c *claude) drain() {
	for {
		select {
		case <-c.sel:
		default:
			return
		}
	}
}
