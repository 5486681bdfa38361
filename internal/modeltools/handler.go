package modeltools

import (
	"bytes"
	"cmp"
	"io"
	"log/slog"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
)

// NewHandler serves the tools over streamable HTTP (stateless, JSON answers: one request, one
// answer; no session state to leak or expire). Every request first goes through check, which
// returns 0 to serve it or an HTTP status and a reason to refuse it; a refused request gets no
// further than that and its connection is closed.
func NewHandler(o Options, check func(*http.Request) (int, string), log *slog.Logger) http.Handler {
	return newHandler(o, check, log, NewServer)
}

// newHandler is NewHandler building its server with newServer (a test counts the builds).
func newHandler(o Options, check func(*http.Request) (int, string), log *slog.Logger, newServer func(Options) *mcp.Server) http.Handler {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	// The server (its tools' schemas, inferred by reflection) is built at the first request
	// that passes check, not at start: a bridge whose /mcp is never asked (most editor
	// sessions) does not keep it in memory (issue 14's idle-memory row).
	h := sync.OnceValue(func() http.Handler {
		srv := newServer(o)
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
			Stateless:    true,
			JSONResponse: true,
			Logger:       log,
			// Tool arguments are small; a position or a query never needs more.
			MaxRequestBodyBytes: MaxBody,
		})
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, reason := check(r)
		var body []byte
		if status == 0 && r.Method == http.MethodPost {
			body, status, reason = readBody(w, r)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		if status != 0 {
			log.Info("refused MCP request", "status", status, "reason", reason, "remote", r.RemoteAddr)
			transport.Refuse(w, status, reason)
			return
		}
		h().ServeHTTP(w, r)
	})
}

// Bounds of a request's body: MaxBody bytes, read within transport.BodyTimeout (a client that
// sends its headers and then trickles or stalls its body no longer holds a goroutine and its
// buffer open forever), and one JSON-RPC message: a batch array is refused (MCP 2025-06-18
// removed batches and the CLI speaks 2025-11-25; the SDK still took them from older clients, so
// 1 MiB of `[{..tools/call..}, ...]` was ~20,000 tool calls at once). Issue 25 item 5.
const MaxBody = 1 << 20

func readBody(w http.ResponseWriter, r *http.Request) (body []byte, status int, reason string) {
	body, status, reason = transport.ReadBody(w, r, MaxBody)
	if status != 0 {
		return nil, status, reason
	}
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return nil, http.StatusBadRequest, "JSON-RPC batches are not accepted: send one message per request"
	}
	return body, 0, ""
}
