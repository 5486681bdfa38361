package transport

import "net/http"

// closingWriter makes every answer but 101 close the connection. A refused request (ours or the
// websocket library's 400/426) would otherwise leave a keep-alive connection that the server
// waits on with no deadline: a cheap way to hold sockets open.
type closingWriter struct{ http.ResponseWriter }

func (w closingWriter) WriteHeader(code int) {
	if code != http.StatusSwitchingProtocols {
		w.Header().Set("Connection", "close")
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets the websocket library find the http.Hijacker underneath.
func (w closingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
