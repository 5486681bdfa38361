// Package claudews is the Claude side of the benchmarks (bench/driver, bench/nvimpeer): one
// WebSocket connection made as the CLI makes it (the auth header, subprotocol mcp, its
// handshake), every frame stamped when it was read and, on Linux, when the kernel received it.
package claudews

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

// Frame is one message as the client received it.
type Frame struct {
	Msg []byte
	At  time.Time // when the WebSocket read returned it
	Rx  time.Time // when the kernel received it (the server's write, on loopback); zero if unknown
}

// Conn is one Claude-side connection. Answers are matched to calls by id; notifications go to
// the callback given to Dial. Calls may be made from several goroutines.
type Conn struct {
	ws     *websocket.Conn
	tcp    net.Conn // under ws, for its receive stamps (rxTime)
	onNote func(method string, f Frame)
	done   chan struct{}

	mu    sync.Mutex
	next  int
	calls map[string]chan Frame
}

// Dial connects to the IDE server on 127.0.0.1:port with token. onNote (may be nil) gets every
// notification on the reader goroutine: it must not block, or the stamps of what follows are late.
func Dial(ctx context.Context, port int, token string, onNote func(method string, f Frame)) (*Conn, error) {
	var tcp net.Conn
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialStamped(ctx, network, addr)
		tcp = c
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
	if onNote == nil {
		onNote = func(string, Frame) {}
	}
	c := &Conn{ws: ws, tcp: tcp, onNote: onNote, done: make(chan struct{}), calls: map[string]chan Frame{}}
	go c.read()
	return c, nil
}

func (c *Conn) read() {
	defer close(c.done)
	for {
		_, msg, err := c.ws.Read(context.Background())
		if err != nil {
			return
		}
		f := Frame{Msg: msg, At: time.Now()}
		f.Rx, _ = rxTime(c.tcp)
		h := ParseHead(msg)
		switch {
		case h.Method != "":
			c.onNote(h.Method, f)
		case h.ID != nil:
			c.mu.Lock()
			ch := c.calls[string(h.ID)]
			delete(c.calls, string(h.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- f
			}
		}
	}
}

// Reserve returns a fresh request id and the channel its answer will arrive on (see Answer), for
// a caller that builds the request itself (Write).
func (c *Conn) Reserve() (string, chan Frame) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	id := strconv.Itoa(c.next)
	ch := make(chan Frame, 1)
	c.calls[id] = ch
	return id, ch
}

// Write sends one message as it is.
func (c *Conn) Write(ctx context.Context, msg []byte) error {
	return c.ws.Write(ctx, websocket.MessageText, msg)
}

// Start sends a request; its answer arrives on the returned channel.
func (c *Conn) Start(ctx context.Context, method string, params any) (chan Frame, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	id, ch := c.Reserve()
	return ch, c.Write(ctx, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"`+method+`","params":`+string(p)+`}`))
}

// Answer waits for the answer on ch.
func (c *Conn) Answer(ctx context.Context, ch chan Frame) (Frame, error) {
	select {
	case f := <-ch:
		return f, nil
	case <-c.done:
		return Frame{}, errors.New("connection closed")
	case <-ctx.Done():
		return Frame{}, ctx.Err()
	}
}

// Call sends a request and returns its whole answer.
func (c *Conn) Call(ctx context.Context, method string, params any) ([]byte, error) {
	ch, err := c.Start(ctx, method, params)
	if err != nil {
		return nil, err
	}
	f, err := c.Answer(ctx, ch)
	return f.Msg, err
}

// Notify sends a notification; params is its JSON.
func (c *Conn) Notify(ctx context.Context, method, params string) error {
	return c.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"`+method+`","params":`+params+`}`))
}

// Handshake is the CLI's: initialize, notifications/initialized, ide_connected, tools/list. An
// answer without a protocol version or without tools is an error.
func (c *Conn) Handshake(ctx context.Context) error {
	res, err := c.Call(ctx, "initialize", map[string]any{
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
	if err := c.Notify(ctx, "notifications/initialized", "{}"); err != nil {
		return err
	}
	if err := c.Notify(ctx, "ide_connected", `{"pid":1}`); err != nil {
		return err
	}
	res, err = c.Call(ctx, "tools/list", map[string]any{})
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

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Close closes the connection and waits (at most 5 s, then drops it) for the reader to end.
func (c *Conn) Close() {
	c.ws.Close(websocket.StatusNormalClosure, "")
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		c.ws.CloseNow()
		<-c.done
	}
}
