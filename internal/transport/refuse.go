package transport

import (
	"bufio"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// closingWriter makes every answer but 101 close the connection. A refused request (ours or the
// websocket library's 400/426) would otherwise leave a keep-alive connection that the server
// waits on with no deadline: a cheap way to hold sockets open. It also keeps the connection the
// library hijacks, so that a client can tell whether its socket would take a write at once.
type closingWriter struct {
	http.ResponseWriter
	conn net.Conn // set by Hijack
}

func (w *closingWriter) WriteHeader(code int) {
	if code != http.StatusSwitchingProtocols {
		w.Header().Set("Connection", "close")
	}
	w.ResponseWriter.WriteHeader(code)
}

// Hijack is the websocket library's way to the connection.
func (w *closingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	w.conn = conn
	return conn, brw, err
}

// Unwrap lets http.ResponseController find what is underneath.
func (w *closingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Refusal logs are rate-limited: a local process can open thousands of connections a second,
// and one log line each would fill the disk of --log-file. At most refuseBurst lines are
// written per refuseWindow; the count of the others is written with the next line that is.
const (
	refuseBurst  = 10
	refuseWindow = 10 * time.Second
)

type refuseLimiter struct {
	mu         sync.Mutex
	start      time.Time
	n          int
	suppressed int
}

// allow reports whether a line may be written now and how many were suppressed before it.
func (l *refuseLimiter) allow(now time.Time) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.start) >= refuseWindow {
		l.start, l.n = now, 0
	}
	if l.n >= refuseBurst {
		l.suppressed++
		return false, 0
	}
	l.n++
	s := l.suppressed
	l.suppressed = 0
	return true, s
}

// refused logs a refused request, rate-limited. A wrong or missing token is a warning (someone
// tried to talk to the bridge without it); client-supplied strings are escaped by the log
// handler's quoting (slog text and JSON both quote control characters).
func (h *Handler) refused(r *http.Request, status int, reason string) {
	ok, suppressed := h.refuseLog.allow(time.Now())
	if !ok {
		return
	}
	level := slog.LevelInfo
	if status == http.StatusUnauthorized {
		level = slog.LevelWarn
	}
	args := []any{"status", status, "reason", reason, "remote", r.RemoteAddr, "method", r.Method, "target", r.RequestURI}
	if suppressed > 0 {
		args = append(args, "not_logged_before", suppressed)
	}
	h.cfg.Log.Log(r.Context(), level, "refused connection", args...)
}
