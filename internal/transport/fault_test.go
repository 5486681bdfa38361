package transport_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// serve runs a Handler with cfg on a loopback port and returns the port and token.
func serve(t *testing.T, cfg transport.Config) (port int, token string) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port = ln.Addr().(*net.TCPAddr).Port
	cfg.Port, cfg.Token = port, "0123456789abcdef0123456789abcdef"
	h := transport.NewHandler(cfg)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: testbin.Bound}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln)
	}()
	t.Cleanup(func() {
		ln.Close()
		h.CloseAll()
		srv.Close()
		<-done
	})
	return port, cfg.Token
}

func dial(t *testing.T, port int, token string) *websocket.Conn {
	t.Helper()
	h := http.Header{}
	h.Set(transport.AuthHeader, token)
	ws, _, err := websocket.Dial(testbin.Ctx(t), "ws://127.0.0.1:"+strconv.Itoa(port)+"/", &websocket.DialOptions{HTTPHeader: h, Subprotocols: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

// readUntilClosed reads until the connection ends and returns the messages and the close status.
func readUntilClosed(t *testing.T, ws *websocket.Conn) ([]string, websocket.StatusCode) {
	t.Helper()
	ctx := testbin.Ctx(t)
	var msgs []string
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				t.Fatal("connection did not end")
			}
			return msgs, websocket.CloseStatus(err)
		}
		msgs = append(msgs, string(b))
	}
}

// stallingTrace blocks the first "out" trace line (the writer goroutine writes it right after a
// message went out) until released: a deterministic way to hold the writer while Send fills the
// queue.
type stallingTrace struct {
	once    sync.Once
	stalled chan struct{}
	release chan struct{}
}

func (s *stallingTrace) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"dir":"out"`)) {
		s.once.Do(func() {
			close(s.stalled)
			<-s.release
		})
	}
	return len(p), nil
}

// A client whose queue overflows is closed with StatusQueueFull (1008, policy violation); while
// its socket has room it receives that code after what was already written.
func TestQueueFullCloses(t *testing.T) {
	tr := &stallingTrace{stalled: make(chan struct{}), release: make(chan struct{})}
	served := make(chan struct{})
	port, token := serve(t, transport.Config{QueueLen: 2, Trace: tr, Serve: func(ctx context.Context, c *transport.Client) {
		defer close(served)
		c.Send([]byte(`{"n":1}`))
		<-tr.stalled // message 1 is on the wire; the writer is held
		c.Send([]byte(`{"n":2}`))
		c.Send([]byte(`{"n":3}`)) // the queue (2) is full
		c.Send([]byte(`{"n":4}`)) // overflow: the client is closed
		if err := c.Write(ctx, []byte(`{"n":5}`)); err != transport.ErrQueueFull {
			t.Errorf("Write after overflow: %v, want ErrQueueFull", err)
		}
		close(tr.release)
		<-c.Done()
	}})
	ws := dial(t, port, token)
	msgs, code := readUntilClosed(t, ws)
	if code != transport.StatusQueueFull {
		t.Fatalf("close status %d, want %d", code, transport.StatusQueueFull)
	}
	if len(msgs) != 1 || msgs[0] != `{"n":1}` {
		t.Fatalf("got %q, want only the message written before the overflow", msgs)
	}
	<-served
}

// A binary frame is not JSON-RPC: the connection is closed with 1003 (unsupported data).
func TestBinaryFrameCloses(t *testing.T) {
	port, token := serve(t, transport.Config{Serve: readAll})
	ws := dial(t, port, token)
	if err := ws.Write(testbin.Ctx(t), websocket.MessageBinary, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if _, code := readUntilClosed(t, ws); code != websocket.StatusUnsupportedData {
		t.Fatalf("close status %d, want 1003", code)
	}
}

// A message over ReadLimit ends the connection with 1009 (message too big), not a crash or a
// huge allocation; the bridge's limit is 65 MiB, above the CLI's own 16 MiB.
func TestOversizedMessageCloses(t *testing.T) {
	port, token := serve(t, transport.Config{ReadLimit: 1 << 10, Serve: readAll})
	ws := dial(t, port, token)
	ws.Write(testbin.Ctx(t), websocket.MessageText, bytes.Repeat([]byte("x"), 4<<10))
	if _, code := readUntilClosed(t, ws); code != websocket.StatusMessageTooBig {
		t.Fatalf("close status %d, want 1009", code)
	}
}

func readAll(ctx context.Context, c *transport.Client) {
	for {
		if _, err := c.Read(ctx); err != nil {
			return
		}
	}
}
