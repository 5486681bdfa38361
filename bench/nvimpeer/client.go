package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// seen is one selection_changed: its start line (0-based) and when the frame was read.
type seen struct {
	line int
	at   time.Time
}

// reply is an answer to a call and when its frame was read (before it is decoded: the time the
// bench client takes to decode 10 MiB of JSON is neither plugin's, and as long as the rest).
type reply struct {
	msg []byte
	at  time.Time
}

// claude is one Claude-side connection made as the CLI makes it (auth header, subprotocol mcp,
// its handshake). Answers are matched by id; selection_changed goes to sel, stamped on read.
// Safe for one caller plus its own reader goroutine.
type claude struct {
	ws    *websocket.Conn
	sel   chan seen
	nsel  atomic.Int64
	done  chan struct{}
	mu    sync.Mutex
	next  int
	calls map[string]chan reply
}

func dialClaude(ctx context.Context, port int, token string) (*claude, error) {
	ws, _, err := websocket.Dial(ctx, "ws://127.0.0.1:"+strconv.Itoa(port)+"/", &websocket.DialOptions{
		HTTPHeader:      http.Header{"X-Claude-Code-Ide-Authorization": {token}, "User-Agent": {"claude-code/bench (cli)"}},
		Subprotocols:    []string{"mcp"},
		CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(256 << 20)
	c := &claude{ws: ws, sel: make(chan seen, 4096), done: make(chan struct{}), calls: map[string]chan reply{}}
	go c.read()
	return c, nil
}

func (c *claude) read() {
	defer close(c.done)
	for {
		_, msg, err := c.ws.Read(context.Background())
		if err != nil {
			return
		}
		at := time.Now()
		var h struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Selection struct {
					Start struct {
						Line int `json:"line"`
					} `json:"start"`
				} `json:"selection"`
			} `json:"params"`
		}
		if json.Unmarshal(msg, &h) != nil {
			continue
		}
		switch {
		case h.Method == "selection_changed":
			c.nsel.Add(1)
			select {
			case c.sel <- seen{h.Params.Selection.Start.Line, at}:
			default:
			}
		case h.Method == "" && h.ID != nil:
			c.mu.Lock()
			ch := c.calls[string(h.ID)]
			delete(c.calls, string(h.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- reply{msg, at}
			}
		}
	}
}

func (c *claude) selections() int64 { return c.nsel.Load() }

// start sends a request; its answer arrives on the returned channel (see answer).
func (c *claude) start(ctx context.Context, method string, params any) (chan reply, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.next++
	id := strconv.Itoa(c.next)
	ch := make(chan reply, 1)
	c.calls[id] = ch
	c.mu.Unlock()
	msg := []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + string(p) + `}`)
	return ch, c.ws.Write(ctx, websocket.MessageText, msg)
}

// answer waits for the answer on ch; its frame was read at the time returned.
func (c *claude) answer(ctx context.Context, ch chan reply) ([]byte, time.Time, error) {
	select {
	case r := <-ch:
		return r.msg, r.at, nil
	case <-c.done:
		return nil, time.Time{}, errors.New("connection closed")
	case <-ctx.Done():
		return nil, time.Time{}, ctx.Err()
	}
}

func (c *claude) call(ctx context.Context, method string, params any) ([]byte, error) {
	ch, err := c.start(ctx, method, params)
	if err != nil {
		return nil, err
	}
	msg, _, err := c.answer(ctx, ch)
	return msg, err
}

func (c *claude) notify(ctx context.Context, method, params string) error {
	return c.ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"`+method+`","params":`+params+`}`))
}

// handshake is the CLI's: initialize, notifications/initialized, ide_connected, tools/list.
func (c *claude) handshake(ctx context.Context) error {
	res, err := c.call(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{"roots": map[string]any{}, "elicitation": map[string]any{}},
		"clientInfo":      map[string]any{"name": "claude-code", "title": "bench", "version": "bench"},
	})
	if err != nil {
		return err
	}
	var r struct {
		Result *struct{} `json:"result"`
	}
	if json.Unmarshal(res, &r); r.Result == nil {
		return errors.New("initialize: " + string(res))
	}
	if err := c.notify(ctx, "notifications/initialized", "{}"); err != nil {
		return err
	}
	if err := c.notify(ctx, "ide_connected", `{"pid":1}`); err != nil {
		return err
	}
	_, err = c.call(ctx, "tools/list", map[string]any{})
	return err
}

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
		case <-c.done:
			return time.Time{}, errors.New("connection closed")
		case <-t:
			return time.Time{}, errors.New("timed out")
		}
	}
}

func (c *claude) Close() {
	c.ws.Close(websocket.StatusNormalClosure, "")
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		c.ws.CloseNow()
		<-c.done
	}
}
