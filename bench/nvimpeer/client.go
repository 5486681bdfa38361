package main

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/claudews"
)

// seen is one selection_changed: its start line (0-based) and when the frame was read.
type seen struct {
	line int
	at   time.Time
}

// claude is one Claude-side connection; selection_changed goes to sel, stamped on read. An
// answer's Frame.At is when its frame was read, before it is decoded: the time the bench client
// takes to decode 10 MiB of JSON is neither plugin's, and as long as the rest.
type claude struct {
	*claudews.Conn
	sel  chan seen
	nsel atomic.Int64
}

func dialClaude(ctx context.Context, port int, token string) (*claude, error) {
	c := &claude{sel: make(chan seen, 4096)}
	conn, err := claudews.Dial(ctx, port, token, func(method string, f claudews.Frame) {
		if method != "selection_changed" {
			return
		}
		var p struct {
			Params struct {
				Selection struct {
					Start struct {
						Line int `json:"line"`
					} `json:"start"`
				} `json:"selection"`
			} `json:"params"`
		}
		if json.Unmarshal(f.Msg, &p) != nil {
			return
		}
		c.nsel.Add(1)
		select {
		case c.sel <- seen{p.Params.Selection.Start.Line, f.At}:
		default:
		}
	})
	c.Conn = conn
	return c, err
}

func (c *claude) selections() int64 { return c.nsel.Load() }

func (c *claude) drain() {
	for {
		select {
		case <-c.sel:
		default:
			return
		}
	}
}

// waitSelection waits for a selection_changed starting on line (0-based).
func (c *claude) waitSelection(line int, d time.Duration) (time.Time, error) {
	t := time.After(d)
	for {
		select {
		case s := <-c.sel:
			if s.line == line {
				return s.at, nil
			}
		case <-c.Done():
			return time.Time{}, errors.New("connection closed")
		case <-t:
			return time.Time{}, errors.New("timed out")
		}
	}
}
