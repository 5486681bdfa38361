package nvimtest

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// claude is a Claude-side client: it finds the bridge through the lock file
// and speaks MCP over the WebSocket as the CLI does.
type claude struct {
	ws      *websocket.Conn
	mu      sync.Mutex
	nextID  int
	pending map[int]chan message
	notes   chan message
	done    chan struct{}
}

type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

type lockFile struct {
	PID              int      `json:"pid"`
	WorkspaceFolders []string `json:"workspaceFolders"`
	IdeName          string   `json:"ideName"`
	Transport        string   `json:"transport"`
	AuthToken        string   `json:"authToken"`
}

// readLock returns the port and contents of the only lock file in cfg/ide.
func readLock(t *testing.T, cfg string) (int, lockFile) {
	t.Helper()
	var names []string
	waitFor(t, "a lock file", func() bool {
		names, _ = filepath.Glob(filepath.Join(cfg, "ide", "*.lock"))
		return len(names) == 1
	})
	data, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	var l lockFile
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(names[0]), ".lock"))
	if err != nil {
		t.Fatal(err)
	}
	return port, l
}

// dialClaude connects and completes the CLI's handshake.
func dialClaude(t *testing.T, cfg string) *claude {
	t.Helper()
	return dialClaudeAs(t, cfg, os.Getpid())
}

// dialClaudeAs is dialClaude for a CLI whose process is pid (what ide_connected reports).
func dialClaudeAs(t *testing.T, cfg string, pid int) *claude {
	t.Helper()
	port, lock := readLock(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := http.Header{}
	h.Set("X-Claude-Code-Ide-Authorization", lock.AuthToken)
	h.Set("User-Agent", "claude-code/2.1.328 (cli)")
	ws, _, err := websocket.Dial(ctx, "ws://127.0.0.1:"+strconv.Itoa(port)+"/", &websocket.DialOptions{
		HTTPHeader: h, Subprotocols: []string{"mcp"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(64 << 20)
	c := &claude{ws: ws, pending: map[int]chan message{}, notes: make(chan message, 1024), done: make(chan struct{})}
	go c.read()
	t.Cleanup(c.close)
	c.request(t, "initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"clientInfo":      map[string]any{"name": "claude-code", "version": "2.1.328"},
		"capabilities":    map[string]any{},
	})
	c.send(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	c.send(t, map[string]any{"jsonrpc": "2.0", "method": "ide_connected", "params": map[string]any{"pid": pid}})
	return c
}

func (c *claude) read() {
	defer close(c.done)
	for {
		_, data, err := c.ws.Read(context.Background())
		if err != nil {
			return
		}
		var m message
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		if m.Method != "" {
			if len(m.ID) == 0 {
				select {
				case c.notes <- m:
				default:
				}
			}
			continue
		}
		id, _ := strconv.Atoi(string(m.ID))
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

func (c *claude) close() {
	c.ws.Close(websocket.StatusNormalClosure, "")
	<-c.done
}

func (c *claude) send(t *testing.T, v any) {
	t.Helper()
	data, _ := json.Marshal(v)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageText, data); err != nil {
		t.Fatal(err)
	}
}

// start sends a request and returns the channel its answer comes on.
func (c *claude) start(t *testing.T, method string, params any) chan message {
	t.Helper()
	ch := make(chan message, 1)
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	c.send(t, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return ch
}

// await waits (bounded) for an answer started with start.
func await(t *testing.T, ch chan message) message {
	t.Helper()
	return testbin.Recv(t, ch, "no answer")
}

func (c *claude) request(t *testing.T, method string, params any) message {
	t.Helper()
	m := await(t, c.start(t, method, params))
	if m.Error != nil {
		t.Fatalf("%s: error %d %s", method, m.Error.Code, m.Error.Message)
	}
	return m
}

// toolResult is an MCP tools/call result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (r toolResult) texts() []string {
	var out []string
	for _, c := range r.Content {
		out = append(out, c.Text)
	}
	return out
}

// startTool calls a tool without waiting (openDiff blocks until a decision).
func (c *claude) startTool(t *testing.T, name string, args any) chan message {
	t.Helper()
	return c.start(t, "tools/call", map[string]any{"name": name, "arguments": args})
}

func toolOf(t *testing.T, m message) toolResult {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("tools/call: error %d %s", m.Error.Code, m.Error.Message)
	}
	var r toolResult
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func (c *claude) tool(t *testing.T, name string, args any) toolResult {
	t.Helper()
	return toolOf(t, await(t, c.startTool(t, name, args)))
}

// waitNote waits for a notification method whose params satisfy ok.
// It fails after 15 s, showing the last such params.
func (c *claude) waitNote(t *testing.T, method string, ok func(json.RawMessage) bool) json.RawMessage {
	t.Helper()
	var last json.RawMessage
	timeout := time.After(15 * time.Second)
	for {
		select {
		case m := <-c.notes:
			if m.Method != method {
				continue
			}
			last = m.Params
			if ok(m.Params) {
				return m.Params
			}
		case <-timeout:
			t.Fatalf("no %s as expected within 15 s; last: %s", method, last)
			return nil
		}
	}
}
