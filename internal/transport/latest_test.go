//go:build linux

package transport_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// A due latest-wins message to an idle client is written by SendLatest's caller (no hand-over to
// the writer goroutine); one that follows within the interval is held, replaced by newer ones,
// and the newest still arrives.
func TestSendLatestDirectWhenIdle(t *testing.T) {
	done := make(chan struct{})
	var direct uint64
	port, token := serve(t, transport.Config{Serve: func(ctx context.Context, c *transport.Client) {
		c.SendLatest([]byte(`{"n":1}`))
		direct = transport.DirectWrites(c)
		for i := 2; i <= 50; i++ {
			c.SendLatest([]byte(fmt.Sprintf(`{"n":%d}`, i)))
		}
		<-done
	}})
	ws := dial(t, port, token)
	var got []string
	for {
		_, b, err := ws.Read(testbin.Ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
		if string(b) == `{"n":50}` {
			break
		}
	}
	close(done)
	if got[0] != `{"n":1}` {
		t.Fatalf("first message %s, want n=1", got[0])
	}
	if direct != 1 {
		t.Fatalf("%d direct writes after the first SendLatest, want 1", direct)
	}
	if len(got) == 50 {
		t.Fatal("every message was sent; the ones within the interval should be replaced")
	}
}

// SendLatest never waits for a client that stopped reading, however full its socket is, and
// the newest message still arrives once the client reads again.
func TestSendLatestNeverBlocksOnStuckClient(t *testing.T) {
	big := `"` + strings.Repeat("b", 64<<10) + `"`
	returned := make(chan uint64, 1)
	port, token := serve(t, transport.Config{QueueLen: 1024, Serve: func(ctx context.Context, c *transport.Client) {
		for range 64 { // 4 MiB: far more than the socket buffers hold
			c.Send([]byte(big))
		}
		for i := 1; i <= 2000; i++ {
			c.SendLatest([]byte(fmt.Sprintf(`{"n":%d}`, i)))
			if i%100 == 0 {
				time.Sleep(latestStep) // let ticks of the pacer pass too
			}
		}
		returned <- transport.DirectWrites(c)
		<-ctx.Done()
	}})
	ws := dialSmallBuffer(t, port, token)
	ws.SetReadLimit(1 << 20)
	select {
	case direct := <-returned:
		if direct != 0 {
			t.Errorf("%d direct writes to a client with a full socket, want 0", direct)
		}
	case <-time.After(testbin.Bound):
		t.Fatal("SendLatest blocked on a client that does not read")
	}
	for {
		_, b, err := ws.Read(testbin.Ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) == `{"n":2000}` {
			return
		}
	}
}

const latestStep = 5 * time.Millisecond

// dialSmallBuffer connects with a small receive buffer, so that little is in flight.
func dialSmallBuffer(t *testing.T, port int, token string) *websocket.Conn {
	t.Helper()
	d := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 8<<10) })
	}}
	h := http.Header{}
	h.Set(transport.AuthHeader, token)
	ws, _, err := websocket.Dial(testbin.Ctx(t), "ws://127.0.0.1:"+strconv.Itoa(port)+"/", &websocket.DialOptions{
		HTTPClient: &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}, HTTPHeader: h, Subprotocols: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

// The send-queue probe behind direct writes: empty on a fresh connection, not empty while the
// peer does not read what was written, empty again once it has.
func TestSendQueueProbe(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	empty := transport.SendQueue(conn)
	if empty == nil || !empty() {
		t.Fatal("a fresh connection's send queue is not empty")
	}
	wrote := make(chan error, 1)
	go func() {
		_, err := conn.Write(make([]byte, 8<<20)) // blocks until the peer reads
		wrote <- err
	}()
	for deadline := time.Now().Add(testbin.Bound); empty(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the send queue stayed empty while the peer did not read")
		}
	}
	buf := make([]byte, 1<<20)
	for n := 0; n < 8<<20; {
		m, err := peer.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		n += m
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(testbin.Bound); !empty(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the send queue stayed full after the peer read everything")
		}
	}
}
