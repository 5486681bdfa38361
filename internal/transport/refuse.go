package transport

import (
	"bufio"
	"net"
	"net/http"
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
