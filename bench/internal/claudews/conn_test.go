package claudews

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// server is an IDE server that wants the token and answers the CLI's handshake; with
// subprotocol "" it refuses to speak mcp. After tools/list it sends one notification.
func server(t *testing.T, token, subprotocol string) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Claude-Code-Ide-Authorization") != token {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		var protos []string
		if subprotocol != "" {
			protos = []string{subprotocol}
		}
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: protos})
		if err != nil {
			return
		}
		defer ws.CloseNow()
		ctx := r.Context()
		for {
			_, msg, err := ws.Read(ctx)
			if err != nil {
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			json.Unmarshal(msg, &m)
			var res string
			switch m.Method {
			case "initialize":
				res = `{"protocolVersion":"2025-11-25"}`
			case "tools/list":
				res = `{"tools":[{"name":"openDiff"}]}`
			case "echo":
				res = string(msg)
			default:
				continue
			}
			ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+res+`}`))
			if m.Method == "tools/list" {
				ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"selection_changed","params":{"text":"x"}}`))
			}
		}
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	p, _ := strconv.Atoi(port)
	return p
}

func TestHandshakeCallAndNotes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	port := server(t, "tok", "mcp")
	notes := make(chan Frame, 1)
	t0 := time.Now()
	c, err := Dial(ctx, port, "tok", func(method string, f Frame) {
		if method == "selection_changed" {
			notes <- f
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Handshake(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-notes:
		if !strings.Contains(string(f.Msg), `"text":"x"`) || f.At.Before(t0) {
			t.Errorf("note %s at %v", f.Msg, f.At)
		}
	case <-ctx.Done():
		t.Fatal("no notification")
	}
	// Two calls in flight: each gets its own answer.
	a, err := c.Start(ctx, "echo", map[string]string{"n": "a"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Start(ctx, "echo", map[string]string{"n": "b"})
	if err != nil {
		t.Fatal(err)
	}
	for want, ch := range map[string]chan Frame{`"n":"a"`: a, `"n":"b"`: b} {
		f, err := c.Answer(ctx, ch)
		if err != nil || !strings.Contains(string(f.Msg), want) {
			t.Errorf("answer %s, %v; want one with %s", f.Msg, err, want)
		}
	}
}

func TestDialRefusals(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if c, err := Dial(ctx, server(t, "tok", "mcp"), "wrong", nil); err == nil {
		c.Close()
		t.Error("a wrong token connected")
	}
	if c, err := Dial(ctx, server(t, "tok", ""), "tok", nil); err == nil || !strings.Contains(err.Error(), "subprotocol mcp") {
		if c != nil {
			c.Close()
		}
		t.Errorf("a server without subprotocol mcp: %v", err)
	}
}
