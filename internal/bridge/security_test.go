package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
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
	// Issue 25 item 7: the CLI always offers "mcp" (facts: "Upgrade headers: Sec-WebSocket-Protocol:
	// mcp"); an upgrade without it is not the CLI and is refused.
	{"no Sec-WebSocket-Protocol", cli(func(r *secRequest, p int, tok string) { r.del("Sec-WebSocket-Protocol") }), 400},
	{"Sec-WebSocket-Protocol chat", cli(func(r *secRequest, p int, tok string) { r.set("Sec-WebSocket-Protocol", "chat") }), 400},
	{"Sec-WebSocket-Protocol chat, mcp", cli(func(r *secRequest, p int, tok string) { r.set("Sec-WebSocket-Protocol", "chat, mcp") }), 101},

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
	t.Parallel()
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
	t.Parallel()
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

// wsClient is a bare WebSocket client that has done the CLI's handshake: it sends raw text and
// reads raw answers, so malformed input reaches the bridge exactly as written.
func wsClient(t *testing.T, b *bridge.Bridge) *websocket.Conn {
	t.Helper()
	ctx := testbin.Ctx(t)
	h := http.Header{}
	h.Set("X-Claude-Code-Ide-Authorization", b.Token())
	ws, _, err := websocket.Dial(ctx, "ws://127.0.0.1:"+strconv.Itoa(b.Port())+"/", &websocket.DialOptions{HTTPHeader: h, Subprotocols: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
	if _, _, err := ws.Read(ctx); err != nil {
		t.Fatal(err)
	}
	ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return ws
}

// wireAnswer is a JSON-RPC response as read off the wire.
type wireAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// badInput is one row of the bad-input table in docs/security.md (WebSocket channel).
type badInput struct {
	name string
	msg  string
	// code is the error code wanted, 0 for a result, -1 for no answer at all.
	code int
	// id is the id the answer must carry ("null" when the request's id could not be read).
	id string
	// names is a field the error message must name (-32602: "naming the field").
	names string
}

func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// wsBadInputs: JSON-RPC 2.0 §5.1 codes. Responses and notifications are never answered (§4.1,
// §5: "The Server MUST NOT reply to a Notification"; a reply to a response would make two peers
// bounce errors forever).
var wsBadInputs = []badInput{
	{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":`, -32700, "null", ""},
	{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, -32700, "null", ""},
	{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}", -32700, "1", ""}, // JSON but for its text: its id is read (issue 35 item 6)
	{"nesting 100000 deep", deep(100000), -32700, "null", ""},
	{"nesting 10001 deep in params (jsontext's bound)", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + deep(10001) + `}}`, -32700, "null", ""},
	{"a number", `42`, -32600, "null", ""},
	{"a string", `"ping"`, -32600, "null", ""},
	{"null", `null`, -32600, "null", ""},
	{"batch array", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, "null", ""},
	{"empty batch", `[]`, -32600, "null", ""},
	{"empty object", `{}`, -32600, "null", ""},
	{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":3,"method":"ping"}`, -32600, "3", ""},
	{"no jsonrpc member", `{"id":3,"method":"ping"}`, -32600, "3", ""},
	{"id is an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null", ""},
	{"id is a boolean", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null", ""},
	{"id is null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null", ""},
	{"method is a number", `{"jsonrpc":"2.0","id":5,"method":7}`, -32600, "null", ""},
	{"unknown method", `{"jsonrpc":"2.0","id":6,"method":"no/such"}`, -32601, "6", "no/such"},
	{"NUL in the method name", `{"jsonrpc":"2.0","id":"n","method":"pi\u0000ng"}`, -32601, `"n"`, ""},
	{"params an array", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[1]}`, -32602, "7", ""},
	{"tools/call name a number", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":1}}`, -32602, "8", `"name"`},
	{"tools/call without name", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{}}`, -32602, "8", `"name"`},
	{"tool arguments a string", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"openFile","arguments":"x"}}`, -32602, "9", ""},
	{"filePath a number", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"openFile","arguments":{"filePath":5}}}`, -32602, "10", `"filePath"`},
	{"new_file_contents an object", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"openDiff","arguments":{"old_file_path":"/a","new_file_path":"/a","new_file_contents":{},"tab_name":"T"}}}`, -32602, "11", `"new_file_contents"`},
	{"uri an array", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"getDiagnostics","arguments":{"uri":[]}}}`, -32602, "12", `"uri"`},
	{"protocolVersion a number", `{"jsonrpc":"2.0","id":13,"method":"initialize","params":{"protocolVersion":2025}}`, -32602, "13", `"protocolVersion"`},
	{"unknown tool", `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"rm -rf"}}`, -32602, "14", "rm -rf"},
	// RFC 8259 allows it, RFC 7493 §2.1 (I-JSON, what jsontext checks) does not: a string must
	// be Unicode text, and half a surrogate pair is not (encoding/json made it U+FFFD).
	{"lone surrogate escape", `{"jsonrpc":"2.0","id":15,"method":"ping","params":{"x":"\ud800"}}`, -32700, "15", ""},
	{"id 1e999 (valid JSON number)", `{"jsonrpc":"2.0","id":1e999,"method":"ping"}`, 0, "1e999", ""},
	{"unknown notification", `{"jsonrpc":"2.0","method":"no/such"}`, -1, "", ""},
	{"notification with bad params", `{"jsonrpc":"2.0","method":"notifications/initialized","params":[1,2]}`, -1, "", ""},
	{"response to no call", `{"jsonrpc":"2.0","id":77,"result":{}}`, -1, "", ""},
	{"error response with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, -1, "", ""},
	{"neither method nor result nor error", `{"jsonrpc":"2.0","id":78}`, -32600, "null", ""},
	// Keys repeat nowhere (issue 15 item 8, issue 16 item 3): a message reads the same in the
	// --trace log as where it runs. -32600 in the envelope, -32602 in params. Names match
	// exactly, as the CLI reads them: one in the wrong case is an unknown member, ignored.
	{"duplicate method", `{"jsonrpc":"2.0","id":20,"method":"ping","method":"tools/list"}`, -32600, "null", `duplicate key "method"`},
	{"duplicate id", `{"jsonrpc":"2.0","id":21,"id":22,"method":"ping"}`, -32600, "null", `duplicate key "id"`},
	{"duplicate by escape", `{"jsonrpc":"2.0","id":21,"method":"ping","\u006dethod":"tools/list"}`, -32600, "null", `duplicate key "method"`},
	{"METHOD beside method: method is read", `{"jsonrpc":"2.0","id":23,"method":"no/such","METHOD":"ping"}`, -32601, "23", "no/such"},
	{"METHOD alone: no method", `{"jsonrpc":"2.0","id":24,"METHOD":"ping"}`, -32600, "null", "response without result or error"},
	{"duplicate key in params", `{"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"name":"openFile","name":"openDiff"}}`, -32602, "25", `duplicate key "name"`},
	{"duplicate key in tool arguments", `{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"name":"openFile","arguments":{"filePath":"/a","filePath":"/b"}}}`, -32602, "26", `duplicate key "filePath"`},
	{"duplicate key deep in arguments", `{"jsonrpc":"2.0","id":27,"method":"tools/call","params":{"name":"getDiagnostics","arguments":{"x":[{"a":1,"a":2}]}}}`, -32602, "27", `duplicate key "a"`},
	{"NAME beside name in params: name is read", `{"jsonrpc":"2.0","id":28,"method":"tools/call","params":{"name":"no-such-tool","NAME":"openFile"}}`, -32602, "28", "no-such-tool"},
	{"FilePath alone in tool arguments: no filePath", `{"jsonrpc":"2.0","id":29,"method":"tools/call","params":{"name":"openFile","arguments":{"FilePath":"/a"}}}`, -32602, "29", `"filePath"`},
}

func TestWebSocketBadInput(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	ws := wsClient(t, b)
	for _, tc := range wsBadInputs {
		t.Run(tc.name, func(t *testing.T) {
			checkBadInput(t, tc, func(msg []byte) {
				if err := ws.Write(testbin.Ctx(t), websocket.MessageText, msg); err != nil {
					t.Fatal(err)
				}
			}, func() []byte {
				_, data, err := ws.Read(testbin.Ctx(t))
				if err != nil {
					t.Fatalf("connection ended: %v", err)
				}
				return data
			})
		})
	}
	t.Logf("%d bad inputs, connection still up", len(wsBadInputs))
}

// checkBadInput sends tc, then a ping with id "after", and checks the answers: the bad input's
// (if any) and the ping's, proving the connection survived. Handlers answer concurrently, so
// the two may come in either order.
func checkBadInput(t *testing.T, tc badInput, send func([]byte), read func() []byte) {
	t.Helper()
	send([]byte(tc.msg))
	send([]byte(`{"jsonrpc":"2.0","id":"after","method":"ping"}`))
	var bad []wireAnswer
	sawPing := false
	for !sawPing || (tc.code != -1 && len(bad) == 0) {
		var a wireAnswer
		raw := read()
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatalf("bridge sent non-JSON %q", raw)
		}
		if string(a.ID) == `"after"` {
			sawPing = true
			continue
		}
		bad = append(bad, a)
	}
	if tc.code == -1 {
		if len(bad) != 0 {
			t.Fatalf("answered %s %s; want no answer", bad[0].ID, bad[0].Result)
		}
		return
	}
	if len(bad) != 1 {
		t.Fatalf("%d answers, want one", len(bad))
	}
	a := bad[0]
	if string(a.ID) != tc.id {
		t.Errorf("answer id %s, want %s", a.ID, tc.id)
	}
	switch {
	case tc.code == 0 && a.Error != nil:
		t.Errorf("error %d %q, want a result", a.Error.Code, a.Error.Message)
	case tc.code != 0 && a.Error == nil:
		t.Errorf("result %s, want error %d", a.Result, tc.code)
	case tc.code != 0 && a.Error.Code != tc.code:
		t.Errorf("error %d %q, want %d", a.Error.Code, a.Error.Message, tc.code)
	case tc.names != "" && !strings.Contains(a.Error.Message, tc.names):
		t.Errorf("error %q does not name %s", a.Error.Message, tc.names)
	}
}

// toolArgCase is one row of the tool-argument table in docs/security.md.
type toolArgCase struct {
	name string
	tool string
	args map[string]any
	// check inspects the answer (result or error) and the editor.
	check func(t *testing.T, r *probe.ToolResult, err error, ed *testEditor)
}

func isToolError(contains string) func(*testing.T, *probe.ToolResult, error, *testEditor) {
	return func(t *testing.T, r *probe.ToolResult, err error, _ *testEditor) {
		t.Helper()
		if err != nil || !r.IsError || !strings.Contains(strings.Join(r.Texts(), " "), contains) {
			t.Fatalf("got %+v, %v; want a tool error saying %q", r, err, contains)
		}
	}
}

func isRPCError(code int, names string) func(*testing.T, *probe.ToolResult, error, *testEditor) {
	return func(t *testing.T, r *probe.ToolResult, err error, _ *testEditor) {
		t.Helper()
		if rpcCode(err) != code || !strings.Contains(err.Error(), names) {
			t.Fatalf("got %+v, %v; want error %d naming %s", r, err, code, names)
		}
	}
}

// TestToolArgumentPaths: paths come from Claude. Relative paths resolve against the first
// workspace folder (never the bridge's cwd); missing files, directories, special files and
// binary files get a clear answer, never a hang or a crash; required names must be non-empty.
func TestToolArgumentPaths(t *testing.T) {
	t.Parallel()
	b, ed := start(t)
	ws := b.Model.Folders()[0]
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(ws, "rel.txt"), []byte("a\nb\n"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "bin.dat"), []byte{0, 1, 2, 0xff, 0xfe, '\n', 0, 'x'}, 0o644))
	must(os.Mkdir(filepath.Join(ws, "dir"), 0o755))
	fifo := filepath.Join(ws, "fifo")
	makeFIFO(t, fifo)
	must(os.Symlink("/proc/self/pagemap", filepath.Join(ws, "pagemap-link")))
	opened := func(want string) func(*testing.T, *probe.ToolResult, error, *testEditor) {
		return func(t *testing.T, r *probe.ToolResult, err error, ed *testEditor) {
			t.Helper()
			if err != nil || r.IsError {
				t.Fatalf("got %+v, %v", r, err)
			}
			if p := recv(t, ed.opened, "openFile"); p.FilePath != want {
				t.Fatalf("editor asked to open %q, want %q", p.FilePath, want)
			}
		}
	}
	cases := []toolArgCase{
		{"openFile relative path", "openFile", map[string]any{"filePath": "rel.txt"}, opened(filepath.Join(ws, "rel.txt"))},
		{"openFile file:// URL", "openFile", map[string]any{"filePath": "file://" + filepath.Join(ws, "rel.txt")}, opened(filepath.Join(ws, "rel.txt"))},
		{"openFile missing file", "openFile", map[string]any{"filePath": "nope.txt"}, isToolError("not found")},
		{"openFile directory", "openFile", map[string]any{"filePath": "dir"}, isToolError("directory")},
		{"openFile binary file with startText", "openFile", map[string]any{"filePath": "bin.dat", "startText": "x"}, opened(filepath.Join(ws, "bin.dat"))},
		{"openFile FIFO with startText", "openFile", map[string]any{"filePath": "fifo", "startText": "x"}, isToolError("not a regular file")},
		// issue 15 item 2: /proc/self/pagemap is a "regular" file of size 0 that reads ~256 GiB;
		// reading it for startText or the line count killed the bridge. /proc, /sys and /dev are
		// refused outright, also through a symlink.
		{"openFile /proc/self/pagemap with startText", "openFile", map[string]any{"filePath": "/proc/self/pagemap", "startText": "x"}, isToolError("/proc")},
		{"openFile /proc/self/pagemap not frontmost", "openFile", map[string]any{"filePath": "/proc/self/pagemap", "makeFrontmost": false}, isToolError("/proc")},
		{"openFile symlink to pagemap", "openFile", map[string]any{"filePath": "pagemap-link", "startText": "x"}, isToolError("/proc")},
		{"openFile /dev/zero", "openFile", map[string]any{"filePath": "/dev/zero", "startText": "x"}, isToolError("/dev")},
		{"openFile /sys file", "openFile", map[string]any{"filePath": "/sys/kernel/notes", "makeFrontmost": false}, isToolError("/sys")},
		{"openDiff /proc/self/pagemap", "openDiff", map[string]any{"old_file_path": "/proc/self/pagemap", "new_file_path": "/proc/self/pagemap", "new_file_contents": "x", "tab_name": "PM"}, isToolError("/proc")},
		// issue 15 item 8: a control character in new_file_path is refused before the editor sees it.
		{"openDiff new_file_path with newline", "openDiff", map[string]any{"old_file_path": "rel.txt", "new_file_path": "rel.txt\nINFO fake", "new_file_contents": "x", "tab_name": "NL"}, isRPCError(-32602, "control character")},
		{"openDiff new_file_path with ESC", "openDiff", map[string]any{"old_file_path": "rel.txt", "new_file_path": "a\x1b[2Kb", "new_file_contents": "x", "tab_name": "ESC"}, isRPCError(-32602, "control character")},
		{"openFile empty path", "openFile", map[string]any{"filePath": ""}, isRPCError(-32602, `"filePath"`)},
		{"openDiff empty tab_name", "openDiff", map[string]any{"old_file_path": "rel.txt", "new_file_path": "rel.txt", "new_file_contents": "x", "tab_name": ""}, isRPCError(-32602, `"tab_name"`)},
		{"openDiff missing old_file_path", "openDiff", map[string]any{"new_file_contents": "x", "tab_name": "T"}, isRPCError(-32602, `"old_file_path"`)},
		{"openDiff directory", "openDiff", map[string]any{"old_file_path": "dir", "new_file_path": "dir", "new_file_contents": "x", "tab_name": "D"}, isToolError("directory")},
		{"close_tab empty tab_name", "close_tab", map[string]any{"tab_name": ""}, isRPCError(-32602, `"tab_name"`)},
		{"checkDocumentDirty empty path", "checkDocumentDirty", map[string]any{"filePath": ""}, isRPCError(-32602, `"filePath"`)},
		{"saveDocument missing file", "saveDocument", map[string]any{"filePath": "nope.txt"}, func(t *testing.T, r *probe.ToolResult, err error, _ *testEditor) {
			if err != nil || !strings.Contains(strings.Join(r.Texts(), ""), `"success":false`) {
				t.Fatalf("got %+v, %v; want success false", r, err)
			}
		}},
		{"getDiagnostics relative uri", "getDiagnostics", map[string]any{"uri": "rel.txt"}, func(t *testing.T, r *probe.ToolResult, err error, _ *testEditor) {
			// facts file: "Return uri exactly as asked".
			if err != nil || !strings.Contains(strings.Join(r.Texts(), ""), `"uri":"rel.txt"`) {
				t.Fatalf("got %+v, %v", r, err)
			}
		}},
	}
	c := connect(t, b)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			r, err := c.Tool(ctx, tc.tool, tc.args)
			if ctx.Err() != nil {
				t.Fatalf("%s did not answer", tc.tool)
			}
			tc.check(t, r, err, ed)
		})
	}
	t.Logf("%d tool-argument cases", len(cases))
}

// The openDiff path cases that reach the editor: a relative path is made absolute against the
// workspace, and a missing file is shown as a new file.
func TestOpenDiffPaths(t *testing.T) {
	t.Parallel()
	b, ed := start(t)
	ws := b.Model.Folders()[0]
	c := connect(t, b)
	for _, tc := range []struct{ path, want string }{{"new.txt", filepath.Join(ws, "new.txt")}, {"sub/../n2.txt", filepath.Join(ws, "n2.txt")}} {
		ans := openDiffAsync(testbin.Ctx(t), c, tc.path, "x\n", "P"+tc.path)
		p := recv(t, ed.shown, "showDiff")
		if p.FilePath != tc.want || p.NewFilePath != tc.want || p.FileExists {
			t.Errorf("%s: shown %+v, want %s as a new file", tc.path, p, tc.want)
		}
		reject(b, p)
		recv(t, ans, "openDiff answer")
		recv(t, ed.closed, "closeDiff")
		if _, err := os.Stat(tc.want); err == nil {
			t.Errorf("%s was created by the bridge", tc.want)
		}
	}
}
