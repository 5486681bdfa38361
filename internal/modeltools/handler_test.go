package modeltools

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 14's idle-memory row: the MCP server (schemas inferred by reflection) is built at the
// first request that passes the check, once; a bridge whose /mcp is never asked, or only asked
// without the token, never builds it.
func TestHandlerBuildsServerAtFirstAllowedRequest(t *testing.T) {
	built := 0
	count := func(o Options) *mcp.Server { built++; return NewServer(o) }
	h := newHandler(Options{}, func(r *http.Request) (int, string) {
		if r.Header.Get("Authorization") != "Bearer ok" {
			return http.StatusUnauthorized, "no token"
		}
		return 0, ""
	}, nil, count)
	if built != 0 {
		t.Fatalf("NewHandler built the server %d times; want none before a request", built)
	}
	post := func(auth string) int {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	if code := post(""); code != http.StatusUnauthorized || built != 0 {
		t.Fatalf("refused request: status %d, server built %d times; want 401 and none", code, built)
	}
	for i := 0; i < 2; i++ {
		if code := post("Bearer ok"); code != http.StatusOK {
			t.Fatalf("allowed request %d: status %d", i+1, code)
		}
	}
	if built != 1 {
		t.Fatalf("server built %d times for two allowed requests; want once", built)
	}
}

func allowAll(*http.Request) (int, string) { return 0, "" }

// Issue 25 item 5: /mcp took JSON-RPC batches (1 MiB of them: ~20,000 tool calls at once); a
// batch is now refused with 400 naming it, and a single message is served as before.
func TestHandlerRefusesBatches(t *testing.T) {
	h := NewHandler(Options{}, allowAll, nil)
	post := func(body string) (int, string) {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	if code, body := post(" \n[" + msg + "," + strings.Replace(msg, `"id":1`, `"id":2`, 1) + "]"); code != http.StatusBadRequest || !strings.Contains(body, "batches are not accepted") {
		t.Fatalf("a batch: %d %.300q, want 400 naming batches", code, body)
	}
	if code, body := post(msg); code != http.StatusOK {
		t.Fatalf("one message: %d %q", code, body)
	}
	if code, _ := post(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + strings.Repeat("a", MaxBody) + `"}}`); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("a body over %d bytes: %d, want 413", MaxBody, code)
	}
}

// Issue 25 item 5: a client that sends its headers and stalls its body held the request open
// forever; now the body must arrive within transport.BodyTimeout, and the connection is closed
// after it.
func TestHandlerBodyReadDeadline(t *testing.T) {
	testbin.Set(t, &transport.BodyTimeout, 200*time.Millisecond)
	srv := httptest.NewServer(NewHandler(Options{}, allowAll, nil))
	defer srv.Close()
	if b := testbin.StalledPost(t, srv.Listener.Addr().String(), "/mcp"); !strings.HasPrefix(b, "HTTP/1.1 408") {
		t.Fatalf("answer to a stalled body: %q", b)
	}
}
