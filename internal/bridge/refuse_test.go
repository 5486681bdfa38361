package bridge_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
)

// closedAfter reads what follows the response: nothing, then EOF (the server closed).
func closedAfter(t *testing.T, resp *http.Response, br io.Reader) {
	t.Helper()
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if n, err := io.Copy(io.Discard, br); n != 0 || err != nil {
		t.Fatalf("after the refusal: %d more bytes, %v; want the connection closed", n, err)
	}
}

// Issue 15 item 5: `OPTIONS *` was answered 200 by net/http before the Origin, Host and token
// checks, and kept alive; any non-GET too must be refused before it is served, connection closed.
func TestNonGetRefusedBeforeServed(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	port, tok := b.Port(), b.Token()
	cases := []struct {
		name string
		req  []byte
	}{
		{"OPTIONS * bare", []byte("OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1:" + strconv.Itoa(port) + "\r\n\r\n")},
		{"OPTIONS * with token", func() []byte { r := cliRequest(port, tok); r.line = "OPTIONS * HTTP/1.1"; return r.bytes() }()},
		{"OPTIONS / with token", func() []byte { r := cliRequest(port, tok); r.line = "OPTIONS / HTTP/1.1"; return r.bytes() }()},
		{"POST / with token", func() []byte { r := cliRequest(port, tok); r.line = "POST / HTTP/1.1"; return r.bytes() }()},
		{"PUT / with token", func() []byte { r := cliRequest(port, tok); r.line = "PUT / HTTP/1.1"; return r.bytes() }()},
		{"HEAD / with token", func() []byte { r := cliRequest(port, tok); r.line = "HEAD / HTTP/1.1"; return r.bytes() }()},
		{"CONNECT authority", []byte("CONNECT 127.0.0.1:" + strconv.Itoa(port) + " HTTP/1.1\r\nHost: 127.0.0.1:" + strconv.Itoa(port) + "\r\n\r\n")},
		{"absolute-form target", []byte("GET http://127.0.0.1:" + strconv.Itoa(port) + "/ HTTP/1.1\r\nHost: 127.0.0.1:" + strconv.Itoa(port) + "\r\n\r\n")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, _, br := roundTrip(t, port, tc.req)
			if resp.StatusCode < 400 {
				t.Fatalf("%s answered %d, want a refusal", firstLine(tc.req), resp.StatusCode)
			}
			if !resp.Close {
				t.Errorf("refusal without Connection: close")
			}
			closedAfter(t, resp, br)
		})
	}
	t.Logf("%d non-GET cases", len(cases))
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// Issue 15 item 8: a failed token is logged as a warning (serve's terminal mode shows warnings
// only), and refusals are rate-limited: 50 refused connections write a bounded number of lines.
func TestRefusalLogs(t *testing.T) {
	t.Parallel()
	var logs syncBuf
	b, _ := startWith(t, func(c *bridge.Config) {
		c.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	})
	for i := 0; i < 50; i++ {
		resp, _, br := roundTrip(t, b.Port(), cliRequest(b.Port(), "wrong-token").bytes())
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("status %d", resp.StatusCode)
		}
		closedAfter(t, resp, br)
	}
	out := logs.String()
	n := strings.Count(out, "refused connection")
	if n == 0 || !strings.Contains(out, "level=WARN") || !strings.Contains(out, "X-Claude-Code-Ide-Authorization") {
		t.Fatalf("failed tokens not logged as warnings:\n%s", out)
	}
	if n > 10 {
		t.Fatalf("%d log lines for 50 refusals, want at most 10 per window:\n%s", n, out)
	}
}

// Issue 15 item 8: an unmasked client frame closed 1000 instead of 1002 (RFC 6455 5.1).
func TestUnmaskedFrameCloses1002(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	resp, c, br := roundTrip(t, b.Port(), cliRequest(b.Port(), b.Token()).bytes())
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if _, err := c.Write([]byte{0x81, 0x02, 'h', 'i'}); err != nil { // FIN text "hi", no mask bit
		t.Fatal(err)
	}
	for {
		h := make([]byte, 2)
		if _, err := io.ReadFull(br, h); err != nil {
			t.Fatalf("no close frame: %v", err)
		}
		n := int(h[1] & 0x7f)
		if n == 126 {
			ext := make([]byte, 2)
			io.ReadFull(br, ext)
			n = int(ext[0])<<8 | int(ext[1])
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(br, payload); err != nil {
			t.Fatal(err)
		}
		if h[0]&0x0f != 0x8 {
			continue // a message before the close (none expected, but not this test's concern)
		}
		if n < 2 || int(payload[0])<<8|int(payload[1]) != 1002 {
			t.Fatalf("close frame %x, want code 1002", payload)
		}
		return
	}
}
