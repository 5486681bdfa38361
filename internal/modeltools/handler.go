package modeltools

import (
	"log/slog"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
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
			MaxRequestBodyBytes: 1 << 20,
		})
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status, reason := check(r); status != 0 {
			log.Info("refused MCP request", "status", status, "reason", reason, "remote", r.RemoteAddr)
			if status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="claude-ide-bridge"`)
			}
			w.Header().Set("Connection", "close")
			http.Error(w, reason, status)
			return
		}
		h().ServeHTTP(w, r)
	})
}
