// Package probe is a Claude-side IDE client: it connects to any IDE server through its lock
// file the way the Claude Code CLI does, and checks the server against the protocol. The
// bridge's own tests use its Client.
package probe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"sync"

	"github.com/coder/websocket"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// Client is one Claude-side connection. Calls may run concurrently. Notifications from the
// server arrive on Notifications (1024 buffered; beyond that new ones are dropped so that a test
// that ignores them never stalls the connection).
type Client struct {
	WS            *websocket.Conn
	Subprotocol   string
	Notifications chan *jsonrpc.Message
	conn          *jsonrpc.Conn
	done          chan struct{}
	runErr        error
	mu            sync.Mutex
}

// DialOptions shape the upgrade request; the zero value is what the CLI sends.
type DialOptions struct {
	Header       http.Header // extra headers (e.g. Origin for negative checks)
	NoToken      bool
	Subprotocols []string // default ["mcp"]
}

// ownClient dials through discovery.DialOwn: the upgrade request, token included, is written
// only to a socket of this user. No proxy, whatever the environment says.
var ownClient = &http.Client{Transport: &http.Transport{Proxy: nil, DialContext: discovery.DialOwnAddr}}

// Dial connects to ws://127.0.0.1:port/ with token, as the CLI does.
func Dial(ctx context.Context, port int, token string, o *DialOptions) (*Client, *http.Response, error) {
	o = cmp.Or(o, &DialOptions{})
	h := http.Header{}
	maps.Copy(h, o.Header)
	if !o.NoToken {
		h.Set("X-Claude-Code-Ide-Authorization", token)
	}
	h.Set("User-Agent", "claude-ide-bridge-probe")
	sub := o.Subprotocols
	if sub == nil {
		sub = []string{"mcp"}
	}
	ws, resp, err := websocket.Dial(ctx, "ws://127.0.0.1:"+strconv.Itoa(port)+"/", &websocket.DialOptions{
		HTTPHeader: h, Subprotocols: sub, CompressionMode: websocket.CompressionDisabled,
		HTTPClient: ownClient,
	})
	if err != nil {
		return nil, resp, err
	}
	ws.SetReadLimit(256 << 20)
	c := &Client{WS: ws, Subprotocol: ws.Subprotocol(), Notifications: make(chan *jsonrpc.Message, 1024), done: make(chan struct{})}
	c.conn = jsonrpc.NewConn(wsStream{ws}, c.handle)
	go func() {
		defer close(c.done)
		err := c.conn.Run(context.Background())
		c.mu.Lock()
		c.runErr = err
		c.mu.Unlock()
	}()
	return c, resp, nil
}

func (c *Client) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if req.IsCall() {
		// The CLI answers unknown requests with -32601 (facts file).
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
	}
	select {
	case c.Notifications <- &jsonrpc.Message{Method: req.Method, Params: req.Params}:
	default: // a test that does not read them loses them; never block the connection
	}
	return nil, nil
}

// Call makes a JSON-RPC call; result may be nil.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	return c.conn.Call(ctx, method, params, result)
}

// Notify sends a notification.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	return c.conn.Notify(ctx, method, params)
}

// open sends initialize (its result decoded into res), notifications/initialized and
// ide_connected as the CLI does; title and pid are what the client says it is.
func (c *Client) open(ctx context.Context, title string, pid int, res any) error {
	err := c.Call(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{"roots": map[string]any{}, "elicitation": map[string]any{}},
		"clientInfo":      map[string]any{"name": "claude-code", "title": title, "version": "probe"},
	}, res)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if err := c.Notify(ctx, "notifications/initialized", nil); err != nil {
		return err
	}
	return c.Notify(ctx, "ide_connected", map[string]any{"pid": pid})
}

// Handshake runs initialize, notifications/initialized, ide_connected and tools/list as the CLI
// does, and returns the initialize result.
func (c *Client) Handshake(ctx context.Context) (map[string]any, error) {
	var res map[string]any
	if err := c.open(ctx, "probe", 1, &res); err != nil {
		return nil, err
	}
	// The CLI lists tools last when the server declares them; servers may wait for it before
	// sending notifications.
	if caps, _ := res["capabilities"].(map[string]any); caps != nil && caps["tools"] != nil {
		if err := c.Call(ctx, "tools/list", nil, nil); err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
	}
	return res, nil
}

// ToolResult is a tools/call result.
type ToolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// Texts returns the text of each content block.
func (r *ToolResult) Texts() []string {
	var out []string
	for _, c := range r.Content {
		out = append(out, c.Text)
	}
	return out
}

// Tool calls a tool.
func (c *Client) Tool(ctx context.Context, name string, args any) (*ToolResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	var r ToolResult
	err := c.Call(ctx, "tools/call", map[string]any{"name": name, "arguments": args, "_meta": map[string]any{"progressToken": 1}}, &r)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// Next waits for the next notification with method.
func (c *Client) Next(ctx context.Context, method string) (*jsonrpc.Message, error) {
	for {
		select {
		case m := <-c.Notifications:
			if m.Method == method {
				return m, nil
			}
		case <-c.done:
			return nil, errors.New("connection closed")
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for %s: %w", method, ctx.Err())
		}
	}
}

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// CloseStatus is the close code the server sent, after Done.
func (c *Client) CloseStatus() websocket.StatusCode {
	c.mu.Lock()
	defer c.mu.Unlock()
	return websocket.CloseStatus(c.runErr)
}

// Close closes the connection normally and waits for the reader.
func (c *Client) Close() error {
	err := c.WS.Close(websocket.StatusNormalClosure, "")
	<-c.done
	return err
}

// NewStream carries JSON-RPC messages as WebSocket text messages (the IDE protocol's framing),
// for either side of a connection.
func NewStream(ws *websocket.Conn) jsonrpc.Stream { return wsStream{ws} }

type wsStream struct{ ws *websocket.Conn }

func (s wsStream) Read(ctx context.Context) ([]byte, error) {
	_, b, err := s.ws.Read(ctx)
	return b, err
}

func (s wsStream) Write(ctx context.Context, b []byte) error {
	return s.ws.Write(ctx, websocket.MessageText, b)
}

func (s wsStream) Close() error { return s.ws.CloseNow() }
