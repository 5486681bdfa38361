package modeltools

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
