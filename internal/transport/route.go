package transport

import (
	"net/http"
)

// Route is one more endpoint on the IDE server's listener, beside the WebSocket: Match picks its
// requests, Check is its own gate (0 lets the request through, else an HTTP status and a reason)
// and Serve answers what passed. A route with no Check is refused: nothing on the listener is
// served without a gate. Handler.Authorize is the gate of routes that take the lock's token.
type Route struct {
	Name  string
	Match func(*http.Request) bool
	Check func(*http.Request) (int, string)
	Serve http.Handler
}

// Mux is the listener's http.Handler: the pre-serve checks that hold for every request, then the
// first Route that matches, then the WebSocket. Every refusal closes the connection.
//
// Checks before any route, in this order:
//   - `OPTIONS *` (and any request whose target is not a path) is refused with 405. net/http
//     answers `OPTIONS *` itself, 200 and keep-alive, before any handler runs, unless the server
//     sets DisableGeneralOptionsHandler; Server does, and Mux refuses it (issue 15 item 5).
//   - the WebSocket endpoint takes only GET (Handler.Check, after Origin, Host and token).
//
// To add an authenticated route (e.g. streamable HTTP MCP on POST /mcp), pass a Route whose
// Check is its own authorization; the WebSocket's GET-only rule does not apply to it.
func Mux(ws *Handler, routes ...Route) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w := &closingWriter{ResponseWriter: rw}
		if r.RequestURI == "*" || r.URL.Path == "" || r.URL.Path[0] != '/' {
			ws.refused(r, http.StatusMethodNotAllowed, "no request target but a path is served")
			http.Error(w, "no request target but a path is served", http.StatusMethodNotAllowed)
			return
		}
		for _, rt := range routes {
			if !rt.Match(r) {
				continue
			}
			status, reason := http.StatusForbidden, "route without a gate"
			if rt.Check != nil {
				status, reason = rt.Check(r)
			}
			if status != 0 {
				ws.refused(r, status, rt.Name+": "+reason)
				http.Error(w, reason, status)
				return
			}
			rt.Serve.ServeHTTP(w, r)
			return
		}
		ws.ServeHTTP(rw, r)
	})
}

// Server returns the http.Server settings every IDE listener uses around handler: net/http's own
// `OPTIONS *` answer is disabled so that Mux sees and refuses it.
func Server(handler http.Handler) *http.Server {
	return &http.Server{Handler: handler, DisableGeneralOptionsHandler: true}
}
