package bridge_test

import (
	"bufio"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// Spec 000 "Authentication": "If the token doesn't match, the connection is rejected." Facts
// file: the CLI sends no Origin, connects to 127.0.0.1, and "A 401 fails the connection".
// A browser page (Origin) or a DNS-rebinding name (Host) must not get in even with the token.
func TestAuthMatrix(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	tests := []struct {
		name   string
		opts   *probe.DialOptions
		token  string
		status int // 0: the upgrade succeeds
	}{
		{"no token", &probe.DialOptions{NoToken: true}, "", http.StatusUnauthorized},
		{"wrong token", nil, "0123456789abcdef0123456789abcdef", http.StatusUnauthorized},
		{"right token but an Origin", &probe.DialOptions{Header: http.Header{"Origin": {"http://127.0.0.1"}}}, b.Token(), http.StatusForbidden},
		{"right token", nil, b.Token(), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, resp, err := probe.Dial(testbin.Ctx(t), b.Port(), tt.token, tt.opts)
			if tt.status == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				c.Close()
				return
			}
			if err == nil {
				c.Close()
				t.Fatalf("accepted, want %d", tt.status)
			}
			if resp == nil || resp.StatusCode != tt.status {
				t.Fatalf("got %v (%v), want status %d", resp, err, tt.status)
			}
		})
	}
}

// A page on evil.example that resolves to 127.0.0.1 sends "Host: evil.example:<port>"; the token
// alone must not let it upgrade.
func TestAuthForeignHost(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	for _, host := range []string{"evil.example:" + strconv.Itoa(b.Port()), "127.0.0.1:1"} {
		if got := rawUpgrade(t, b.Port(), host, b.Token()); got != http.StatusForbidden {
			t.Errorf("Host %s: status %d, want 403", host, got)
		}
	}
	if got := rawUpgrade(t, b.Port(), "127.0.0.1:"+strconv.Itoa(b.Port()), b.Token()); got != http.StatusSwitchingProtocols {
		t.Errorf("Host 127.0.0.1: status %d, want 101 (the same raw request must work when only Host differs)", got)
	}
}

// rawUpgrade sends a WebSocket upgrade with the given Host header and returns the status.
func rawUpgrade(t *testing.T, port int, host, token string) int {
	t.Helper()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	req := "GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: mcp\r\n" +
		"X-Claude-Code-Ide-Authorization: " + token + "\r\n\r\n"
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Facts file: "The server MUST answer with Sec-WebSocket-Protocol: mcp; otherwise the CLI fails
// with "Missing client protocol" and never retries."
func TestSubprotocolEchoed(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	c, resp, err := probe.Dial(testbin.Ctx(t), b.Port(), b.Token(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Subprotocol != "mcp" || resp.Header.Get("Sec-WebSocket-Protocol") != "mcp" {
		t.Fatalf("subprotocol %q, header %q; want mcp", c.Subprotocol, resp.Header.Get("Sec-WebSocket-Protocol"))
	}
}
