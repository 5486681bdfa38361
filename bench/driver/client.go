package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// seen is one selection_changed as a client received it.
type seen struct {
	seq int
	at  time.Time // when the client's ws.Read returned it
	rx  time.Time // when the kernel received it (the sidecar's write on loopback); zero if unknown
}

// claude is one Claude-side connection as the CLI makes it (URL, headers, subprotocol,
// handshake). Answers are matched by id; selection_changed notifications go to sel, stamped the
// moment the frame was read.
type claude struct {
	ws   *websocket.Conn
	conn net.Conn // the TCP connection under ws, for its receive timestamps (rxTime)
	sel  chan seen
	done chan struct{}

	mu     sync.Mutex
	nextID int
	calls  map[string]chan []byte
}

func dialClaude(ctx context.Context, port int, token string) (*claude, error) {
	var conn net.Conn
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialStamped(ctx, network, addr)
		conn = c
		return c, err
	}
	ws, _, err := websocket.Dial(ctx, "ws://127.0.0.1:"+strconv.Itoa(port)+"/", &websocket.DialOptions{
		HTTPClient:      &http.Client{Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true}},
		HTTPHeader:      http.Header{"X-Claude-Code-Ide-Authorization": {token}, "User-Agent": {"claude-code/bench (cli)"}},
		Subprotocols:    []string{"mcp"},
		CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		return nil, err
	}
	if ws.Subprotocol() != "mcp" {
		ws.CloseNow()
		return nil, errors.New("server did not answer with subprotocol mcp")
	}
	ws.SetReadLimit(256 << 20)
	c := &claude{ws: ws, conn: conn, sel: make(chan seen, 1<<15), done: make(chan struct{}), calls: map[string]chan []byte{}}
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
		rx, _ := rxTime(c.conn)
		h := parseHead(msg)
		switch {
		case h.Method == "selection_changed":
			if seq, ok := selectionSeq(msg); ok {
				select {
				case c.sel <- seen{seq, at, rx}:
				default: // a phase that does not drain loses samples, never stalls the reader
				}
			}
		case h.Method == "" && h.ID != nil:
			c.mu.Lock()
			ch := c.calls[string(h.ID)]
			delete(c.calls, string(h.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- msg
			}
		}
	}
}

// reserve returns a fresh id and the channel its answer will arrive on.
func (c *claude) reserve() (string, chan []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	id := strconv.Itoa(c.nextID)
	ch := make(chan []byte, 1)
	c.calls[id] = ch
	return id, ch
}

// call sends a request and returns the whole answer message.
func (c *claude) call(ctx context.Context, method string, params any) ([]byte, error) {
	id, ch := c.reserve()
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	msg := []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + string(p) + `}`)
	if err := c.ws.Write(ctx, websocket.MessageText, msg); err != nil {
		return nil, err
	}
	return c.answer(ctx, ch)
}

func (c *claude) answer(ctx context.Context, ch chan []byte) ([]byte, error) {
	select {
	case m := <-ch:
		return m, nil
	case <-c.done:
		return nil, errors.New("connection closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *claude) notify(ctx context.Context, method string, params string) error {
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
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(res, &r); r.Result == nil || r.Result.ProtocolVersion == "" {
		return errors.New("initialize: " + string(res))
	}
	if err := c.notify(ctx, "notifications/initialized", "{}"); err != nil {
		return err
	}
	if err := c.notify(ctx, "ide_connected", `{"pid":1}`); err != nil {
		return err
	}
	res, err = c.call(ctx, "tools/list", map[string]any{})
	if err != nil {
		return err
	}
	var tl struct {
		Result *struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(res, &tl); tl.Result == nil || len(tl.Result.Tools) == 0 {
		return errors.New("tools/list: " + string(res))
	}
	return nil
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

func (c *claude) Close() {
	c.ws.Close(websocket.StatusNormalClosure, "")
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		c.ws.CloseNow()
		<-c.done
	}
}
