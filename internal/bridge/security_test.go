package bridge_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
)

// secRequest is an upgrade request as the CLI sends it (claude-cli-facts.md: "Upgrade headers:
// Sec-WebSocket-Protocol: mcp, User-Agent, X-Claude-Code-Ide-Authorization. No Origin."), as
// editable lines so each case can break exactly one thing.
type secRequest struct {
	line    string      // request line
	headers [][2]string // in order; duplicates allowed
}

func cliRequest(port int, token string) *secRequest {
	return &secRequest{
		line: "GET / HTTP/1.1",
		headers: [][2]string{
			{"Host", "127.0.0.1:" + strconv.Itoa(port)},
			{"Upgrade", "websocket"},
			{"Connection", "Upgrade"},
			{"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="},
			{"Sec-WebSocket-Version", "13"},
			{"Sec-WebSocket-Protocol", "mcp"},
			{"User-Agent", "claude-code/2.1.328 (cli)"},
			{"X-Claude-Code-Ide-Authorization", token},
		},
	}
}

// rawLine as a header value writes the header's name alone as the line.
const rawLine = "\x00raw"

func (r *secRequest) set(name, value string) *secRequest {
	for i, h := range r.headers {
		if strings.EqualFold(h[0], name) {
			r.headers[i][1] = value
			return r
		}
	}
	r.headers = append(r.headers, [2]string{name, value})
	return r
}

func (r *secRequest) del(name string) *secRequest {
	out := r.headers[:0]
	for _, h := range r.headers {
		if !strings.EqualFold(h[0], name) {
			out = append(out, h)
		}
	}
	r.headers = out
	return r
}

func (r *secRequest) add(name, value string) *secRequest {
	r.headers = append(r.headers, [2]string{name, value})
	return r
}

func (r *secRequest) bytes() []byte {
	var b strings.Builder
	b.WriteString(r.line + "\r\n")
	for _, h := range r.headers {
		if h[1] == rawLine {
			b.WriteString(h[0] + "\r\n")
			continue
		}
		b.WriteString(h[0] + ": " + h[1] + "\r\n")
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}

// roundTrip sends raw on a fresh TCP connection and returns the response and the connection
// (closed by t.Cleanup).
func roundTrip(t *testing.T, port int, raw []byte) (*http.Response, net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading the answer to %q: %v", firstLine(raw), err)
	}
	return resp, c, br
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\r\n")
	return s
}

// handshakeCase is one row of the rejection matrix in docs/security.md.
type handshakeCase struct {
	name string
	req  func(port int, token string) []byte
	want int
}

func cli(f func(r *secRequest, port int, token string)) func(int, string) []byte {
	return func(port int, token string) []byte {
		r := cliRequest(port, token)
		f(r, port, token)
		return r.bytes()
	}
}

// handshakeCases: spec 000 "If the token doesn't match, the connection is rejected" and "Always
// bind to localhost (127.0.0.1) only!"; a browser page (any Origin) and a DNS-rebinding name
// (Host) must never reach the token check's success path.
var handshakeCases = []handshakeCase{
	{"the CLI's request", cli(func(r *secRequest, p int, tok string) {}), 101},
	{"header name in lower case", cli(func(r *secRequest, p int, tok string) {
		r.del("X-Claude-Code-Ide-Authorization").add("x-claude-code-ide-authorization", tok)
	}), 101},
	{"Host localhost:port", cli(func(r *secRequest, p int, tok string) { r.set("Host", "localhost:"+strconv.Itoa(p)) }), 101},
	{"Host [::1]:port", cli(func(r *secRequest, p int, tok string) { r.set("Host", "[::1]:"+strconv.Itoa(p)) }), 101},

	// Token.
	{"no token", cli(func(r *secRequest, p int, tok string) { r.del("X-Claude-Code-Ide-Authorization") }), 401},
	{"empty token", cli(func(r *secRequest, p int, tok string) { r.set("X-Claude-Code-Ide-Authorization", "") }), 401},
	{"wrong token, same length", cli(func(r *secRequest, p int, tok string) {
		r.set("X-Claude-Code-Ide-Authorization", flipLast(tok))
	}), 401},
	{"token one character short", cli(func(r *secRequest, p int, tok string) {
		r.set("X-Claude-Code-Ide-Authorization", tok[:len(tok)-1])
	}), 401},
	{"token one character long", cli(func(r *secRequest, p int, tok string) {
		r.set("X-Claude-Code-Ide-Authorization", tok+"0")
	}), 401},
	{"token in upper case", cli(func(r *secRequest, p int, tok string) {
		r.set("X-Claude-Code-Ide-Authorization", strings.ToUpper(tok))
	}), 401},
	{"token as a prefix", cli(func(r *secRequest, p int, tok string) {
		r.set("X-Claude-Code-Ide-Authorization", tok[:16])
	}), 401},
	{"token header twice, both right", cli(func(r *secRequest, p int, tok string) {
		r.add("X-Claude-Code-Ide-Authorization", tok)
	}), 401},
	{"token header twice, right then wrong", cli(func(r *secRequest, p int, tok string) {
		r.add("X-Claude-Code-Ide-Authorization", flipLast(tok))
	}), 401},
	{"token twice in one header", cli(func(r *secRequest, p int, tok string) {
		r.set("X-Claude-Code-Ide-Authorization", tok+", "+tok)
	}), 401},
	{"token in the query, not the header", cli(func(r *secRequest, p int, tok string) {
		r.line = "GET /?token=" + tok + " HTTP/1.1"
		r.del("X-Claude-Code-Ide-Authorization")
	}), 401},
	{"token as Authorization: Bearer", cli(func(r *secRequest, p int, tok string) {
		r.del("X-Claude-Code-Ide-Authorization").add("Authorization", "Bearer "+tok)
	}), 401},

	// Origin (cross-site WebSocket hijacking): refused even with the right token.
	{"Origin of a web page", cli(func(r *secRequest, p int, tok string) { r.add("Origin", "https://evil.example") }), 403},
	{"Origin null (sandboxed page, file://)", cli(func(r *secRequest, p int, tok string) { r.add("Origin", "null") }), 403},
	{"Origin empty", cli(func(r *secRequest, p int, tok string) { r.add("Origin", "") }), 403},
	{"Origin of the server itself", cli(func(r *secRequest, p int, tok string) {
		r.add("Origin", "http://127.0.0.1:"+strconv.Itoa(p))
	}), 403},
	{"Origin without a token", cli(func(r *secRequest, p int, tok string) {
		r.add("Origin", "https://evil.example").del("X-Claude-Code-Ide-Authorization")
	}), 403},

	// Host (DNS rebinding: a page on evil.example that resolves to 127.0.0.1 still sends its name).
	{"Host evil.example:port", cli(func(r *secRequest, p int, tok string) { r.set("Host", "evil.example:"+strconv.Itoa(p)) }), 403},
	{"Host localhost.evil.example:port", cli(func(r *secRequest, p int, tok string) {
		r.set("Host", "localhost.evil.example:"+strconv.Itoa(p))
	}), 403},
	{"Host 127.0.0.1.nip.io:port", cli(func(r *secRequest, p int, tok string) { r.set("Host", "127.0.0.1.nip.io:"+strconv.Itoa(p)) }), 403},
	{"Host 0.0.0.0:port", cli(func(r *secRequest, p int, tok string) { r.set("Host", "0.0.0.0:"+strconv.Itoa(p)) }), 403},
	{"Host without port", cli(func(r *secRequest, p int, tok string) { r.set("Host", "127.0.0.1") }), 403},
	{"Host with another port", cli(func(r *secRequest, p int, tok string) { r.set("Host", "127.0.0.1:"+strconv.Itoa(p^1)) }), 403},
	{"Host empty", cli(func(r *secRequest, p int, tok string) { r.set("Host", "") }), 403},
	{"absolute URI naming another host", cli(func(r *secRequest, p int, tok string) {
		r.line = "GET http://evil.example:" + strconv.Itoa(p) + "/ HTTP/1.1"
	}), 403},
	{"HTTP/1.0 without Host", cli(func(r *secRequest, p int, tok string) { r.line = "GET / HTTP/1.0"; r.del("Host") }), 403},

	// Method and protocol.
	{"POST", cli(func(r *secRequest, p int, tok string) { r.line = "POST / HTTP/1.1" }), 405},
	{"PUT", cli(func(r *secRequest, p int, tok string) { r.line = "PUT / HTTP/1.1" }), 405},
	{"HEAD", cli(func(r *secRequest, p int, tok string) { r.line = "HEAD / HTTP/1.1" }), 405},
	{"OPTIONS (CORS preflight)", cli(func(r *secRequest, p int, tok string) {
		r.line = "OPTIONS / HTTP/1.1"
		r.add("Origin", "https://evil.example").add("Access-Control-Request-Method", "GET")
	}), 403},
	{"POST without token", cli(func(r *secRequest, p int, tok string) {
		r.line = "POST / HTTP/1.1"
		r.del("X-Claude-Code-Ide-Authorization")
	}), 401},
	{"plain HTTP GET with token", cli(func(r *secRequest, p int, tok string) {
		r.del("Upgrade").del("Connection").del("Sec-WebSocket-Key").del("Sec-WebSocket-Version")
	}), 426},
	{"plain HTTP GET without token", cli(func(r *secRequest, p int, tok string) {
		r.del("Upgrade").del("Connection").del("X-Claude-Code-Ide-Authorization")
	}), 401},
	{"Upgrade: h2c", cli(func(r *secRequest, p int, tok string) {
		r.set("Upgrade", "h2c").set("Connection", "Upgrade, HTTP2-Settings")
	}), 426},
	{"no Sec-WebSocket-Key", cli(func(r *secRequest, p int, tok string) { r.del("Sec-WebSocket-Key") }), 400},
	{"Sec-WebSocket-Version 8", cli(func(r *secRequest, p int, tok string) { r.set("Sec-WebSocket-Version", "8") }), 400},

	// Size and syntax.
	{"one 64 KiB header", cli(func(r *secRequest, p int, tok string) { r.add("X-Pad", strings.Repeat("a", 64<<10)) }), 431},
	{"2000 small headers", cli(func(r *secRequest, p int, tok string) {
		for i := range 2000 {
			r.add(fmt.Sprintf("X-Pad-%d", i), "0123456789")
		}
	}), 431},
	{"64 KiB request line", cli(func(r *secRequest, p int, tok string) {
		r.line = "GET /" + strings.Repeat("a", 64<<10) + " HTTP/1.1"
	}), 431},
	{"header line without a colon", cli(func(r *secRequest, p int, tok string) { r.add("No colon here", rawLine) }), 400},
	{"header with a space before the colon", cli(func(r *secRequest, p int, tok string) {
		r.del("X-Claude-Code-Ide-Authorization").add("X-Claude-Code-Ide-Authorization : "+tok, rawLine)
	}), 400},
	{"header name with a NUL", cli(func(r *secRequest, p int, tok string) { r.add("X-A\x00b", "1") }), 400},
	{"bare LF line endings", func(p int, tok string) []byte {
		return []byte(strings.ReplaceAll(string(cliRequest(p, tok).bytes()), "\r\n", "\n"))
	}, 101},
	{"garbage line", func(int, string) []byte { return []byte("\x00\x01\x02 hello\r\n\r\n") }, 400},
}

func flipLast(tok string) string {
	last := tok[len(tok)-1]
	if last == '0' {
		last = '1'
	} else {
		last = '0'
	}
	return tok[:len(tok)-1] + string(last)
}

func TestHandshakeMatrix(t *testing.T) {
	b, _ := start(t)
	for _, tc := range handshakeCases {
		t.Run(tc.name, func(t *testing.T) {
			resp, c, br := roundTrip(t, b.Port(), tc.req(b.Port(), b.Token()))
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, resp.Status, tc.want)
			}
			if tc.want == 101 {
				// The CLI fails with "Missing client protocol" without this (facts file).
				if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != "mcp" {
					t.Fatalf("Sec-WebSocket-Protocol %q, want mcp", got)
				}
				return
			}
			// A refused connection must not linger as a keep-alive connection: the server closes it.
			io.Copy(io.Discard, resp.Body)
			if _, err := br.ReadByte(); err == nil {
				t.Fatalf("the server sent more after a %d", resp.StatusCode)
			} else if isTimeout(err) {
				t.Fatalf("connection kept open after a %d", resp.StatusCode)
			}
			_ = c
		})
	}
	t.Logf("%d handshake cases", len(handshakeCases))
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// TestHandshakeTimeBound: a connection that never completes its request is dropped by the
// server (ReadHeaderTimeout); it cannot hold a socket forever. Several idle and half-sent
// connections are checked together so the suite waits for the deadline once.
func TestHandshakeTimeBound(t *testing.T) {
	b, _ := start(t)
	partial := cliRequest(b.Port(), b.Token()).bytes()
	partial = partial[:len(partial)-4] // no blank line: the headers never end
	// A TLS ClientHello has no line end: an HTTP server waits for one.
	tlsHello := append([]byte{0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03}, make([]byte, 64)...)
	sends := [][]byte{nil, partial, tlsHello}
	kinds := []string{"nothing", "partial headers", "a TLS ClientHello"}
	var wg sync.WaitGroup
	errs := make(chan error, 9)
	for i := range 9 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(b.Port()))
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			c.Write(sends[i%3])
			// Bounded wait: the bridge's header deadline is far shorter than this.
			c.SetReadDeadline(time.Now().Add(30 * time.Second))
			_, err = io.Copy(io.Discard, c)
			if isTimeout(err) {
				errs <- fmt.Errorf("connection %d (sent %s) still open after 30s", i, kinds[i%3])
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

var _ = bridge.Config{}
