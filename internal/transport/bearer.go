package transport

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
)

// CheckBearer decides whether a plain HTTP request to the model's MCP endpoint (streamable
// HTTP: POST, GET and DELETE) may be served. It returns 0 when it may, else the HTTP status and
// a reason. The rules are the WebSocket's (Check), in the same order, with the endpoint's own
// token in a standard "Authorization: Bearer" header: any Origin (a browser page) and a Host
// that is not a loopback address of port (DNS rebinding) are refused before the token is
// looked at; a peer that is not on loopback is refused too (the listener is loopback only; this
// is defence in depth). The token is compared in constant time.
func CheckBearer(r *http.Request, port int, token string) (int, string) {
	if _, ok := r.Header["Origin"]; ok {
		return http.StatusForbidden, "requests with an Origin header are refused (browser pages may not connect)"
	}
	if !loopbackHost(r.Host, port) {
		return http.StatusForbidden, "Host must be a loopback address of this port"
	}
	if !loopbackPeer(r.RemoteAddr) {
		return http.StatusForbidden, "only loopback peers may connect"
	}
	vals := r.Header.Values("Authorization")
	const scheme = "bearer "
	if len(vals) != 1 || len(vals[0]) <= len(scheme) || !strings.EqualFold(vals[0][:len(scheme)], scheme) ||
		!TokenEqual(vals[0][len(scheme):], token) {
		return http.StatusUnauthorized, "missing or wrong Authorization: Bearer token"
	}
	switch r.Method {
	case http.MethodPost, http.MethodGet, http.MethodDelete:
	default:
		return http.StatusMethodNotAllowed, "the MCP endpoint takes POST, GET and DELETE"
	}
	return 0, ""
}

// Refuse answers a refused plain HTTP request and closes its connection; a 401 names the Bearer
// scheme.
func Refuse(w http.ResponseWriter, status int, reason string) {
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="claude-ide-bridge"`)
	}
	w.Header().Set("Connection", "close")
	http.Error(w, reason, status)
}

func loopbackPeer(addr string) bool {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// TokenEqual reports whether got equals want in constant time.
// An empty want never matches, so an unset token cannot authorise anyone.
func TokenEqual(got, want string) bool {
	if want == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
