//go:build unix

package bridge_test

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/coder/websocket"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// A flood of selections to a client that is not reading yet ends with the client seeing the
// last one, in far fewer messages: each client keeps only the newest unsent selection (editor
// protocol: "the bridge also drops repeats and coalesces a flood (latest wins)").
func TestSelectionFloodCoalesced(t *testing.T) {
	ready := make(chan ide.ClientID, 1)
	b, _ := startWith(t, func(c *bridge.Config) {
		c.Events.ClientConnected = func(id ide.ClientID, _ string, _ ide.Agents) { ready <- id }
	})
	ws := rawClient(t, b, ready)
	big := strings.Repeat("y", 4<<10) // a few hundred fill the socket buffers
	const n = 10000
	for i := range n {
		s := sel("/w/a.go", i)
		s.Text = big
		b.Model.SelectionChanged(s)
	}
	ctx := testbin.Ctx(t)
	seen := 0
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("after %d messages: %v", seen, err)
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				Selection struct {
					Start struct {
						Line int `json:"line"`
					} `json:"start"`
				} `json:"selection"`
			} `json:"params"`
		}
		json.Unmarshal(data, &m)
		if m.Method != "selection_changed" {
			continue
		}
		seen++
		if m.Params.Selection.Start.Line == n-1 {
			break
		}
	}
	// A few hundred fit in the socket buffers; without coalescing all 10000 would be sent (or
	// the client dropped for a full queue).
	if seen > n/4 {
		t.Fatalf("%d of %d selections reached the client; want far fewer", seen, n)
	}
	t.Logf("%d of %d selections sent", seen, n)
}

// rawClient connects and does the handshake by hand, then reads nothing until the test does.
func rawClient(t *testing.T, b *bridge.Bridge, ready <-chan ide.ClientID) *websocket.Conn {
	t.Helper()
	ctx := testbin.Ctx(t)
	// A small receive buffer stands for a client that is busy: little fits in flight.
	d := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 8<<10) })
	}}
	hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	ws, _, err := websocket.Dial(ctx, "ws://127.0.0.1:"+strconv.Itoa(b.Port())+"/", &websocket.DialOptions{
		HTTPClient: hc, HTTPHeader: http.Header{"X-Claude-Code-Ide-Authorization": {b.Token()}}, Subprotocols: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(1 << 20)
	t.Cleanup(func() { ws.CloseNow() })
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"ide_connected","params":{"pid":1}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	} {
		if err := ws.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := ws.Read(ctx); err != nil { // the initialize answer
		t.Fatal(err)
	}
	select {
	case <-ready:
	case <-ctx.Done():
		t.Fatal("handshake never finished")
	}
	return ws
}
