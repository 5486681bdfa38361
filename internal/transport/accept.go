// Package transport accepts Claude's WebSocket connections: it checks the request before the
// upgrade (Origin, Host, token), speaks RFC 6455 through github.com/coder/websocket, and gives
// each client its own bounded send queue. It knows nothing about MCP or tools.
package transport

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// AuthHeader carries the lock file's token.
const AuthHeader = "X-Claude-Code-Ide-Authorization"

// Config configures a Handler.
type Config struct {
	Token string // the lock file's authToken
	Port  int    // the port this server listens on; Host must name it
	// Serve runs one accepted client and returns when it is done; the client is closed after.
	Serve func(ctx context.Context, c *Client)
	// MaxClients bounds concurrent connections (default 64); over it the upgrade gets 503.
	MaxClients int
	// ReadLimit bounds one incoming message (default 64 MiB + 1 MiB for the JSON around a file).
	ReadLimit int64
	// QueueLen bounds each client's send queue in messages (default 256).
	QueueLen int
	// Keepalive is the ping interval, and how long a pong may take (default 30s).
	Keepalive time.Duration
	Trace     io.Writer // optional: every frame, one JSON line each
	Log       *slog.Logger
}

// Handler is the http.Handler of the IDE server.
type Handler struct {
	cfg     Config
	active  atomic.Int64
	nextID  atomic.Uint64
	traceMu sync.Mutex

	mu      sync.Mutex
	clients map[*Client]struct{}
	wg      sync.WaitGroup
	pacer   pacer

	refuseLog refuseLimiter
}

// NewHandler returns a Handler.
func NewHandler(cfg Config) *Handler {
	if cfg.MaxClients == 0 {
		cfg.MaxClients = 64
	}
	if cfg.ReadLimit == 0 {
		cfg.ReadLimit = 65 << 20
	}
	if cfg.QueueLen == 0 {
		cfg.QueueLen = 256
	}
	if cfg.Keepalive <= 0 {
		cfg.Keepalive = 30 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Handler{cfg: cfg, clients: map[*Client]struct{}{}}
}

// Check decides whether a request may upgrade. It returns 0 when it may, else the HTTP status
// and a reason. Order matters: a browser page (Origin) or a rebinding name (Host) is refused
// before the token is even looked at.
func (h *Handler) Check(r *http.Request) (int, string) {
	if status, reason := h.Authorize(r); status != 0 {
		return status, reason
	}
	if r.Method != http.MethodGet {
		return http.StatusMethodNotAllowed, "only GET may upgrade"
	}
	if !headerHas(r.Header, "Connection", "upgrade") || !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return http.StatusUpgradeRequired, "this is a WebSocket endpoint"
	}
	// The CLI always offers subprotocol "mcp" and fails without it in the answer; an upgrade
	// that does not offer it is something else (issue 25 item 7).
	if !headerHas(r.Header, "Sec-WebSocket-Protocol", "mcp") {
		return http.StatusBadRequest, `the WebSocket subprotocol "mcp" is required`
	}
	return 0, ""
}

// Authorize is the part of Check that decides who may talk to this server at all: no Origin, a
// loopback Host naming this port, the token. Other endpoints on the same listener (the shell's
// mention and select, internal/remote) use it as their only gate, so they are exactly as
// guarded as the WebSocket.
func (h *Handler) Authorize(r *http.Request) (int, string) {
	if _, ok := r.Header["Origin"]; ok {
		return http.StatusForbidden, "requests with an Origin header are refused (browser pages may not connect)"
	}
	if !loopbackHost(r.Host, h.cfg.Port) {
		return http.StatusForbidden, "Host must be a loopback address of this port"
	}
	vals := r.Header.Values(AuthHeader)
	if len(vals) != 1 || !TokenEqual(vals[0], h.cfg.Token) {
		return http.StatusUnauthorized, "missing or wrong " + AuthHeader
	}
	return 0, ""
}

func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// loopbackHost accepts 127.0.0.1:port, localhost:port and [::1]:port (DNS rebinding defence:
// a page on evil.example resolving to 127.0.0.1 still sends Host: evil.example).
func loopbackHost(host string, port int) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != strconv.Itoa(port) {
		return false
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func (h *Handler) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := &closingWriter{ResponseWriter: rw}
	if status, reason := h.Check(r); status != 0 {
		h.refused(r, status, reason)
		http.Error(w, reason, status)
		return
	}
	if h.active.Add(1) > int64(h.cfg.MaxClients) {
		h.active.Add(-1)
		http.Error(w, "too many connections", http.StatusServiceUnavailable)
		return
	}
	defer h.active.Add(-1)
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols:    []string{"mcp"},
		CompressionMode: websocket.CompressionDisabled,
		// Origin was refused above; nothing cross-origin reaches here.
	})
	if err != nil {
		h.cfg.Log.Info("upgrade failed", "err", err)
		return
	}
	ws.SetReadLimit(h.cfg.ReadLimit)
	c := newClient(h, ws, h.nextID.Add(1), w.conn)
	if !h.track(c) {
		ws.Close(websocket.StatusGoingAway, "server shutting down")
		return
	}
	defer h.untrack(c)
	h.cfg.Log.Info("client connected", "client", c.id, "subprotocol", ws.Subprotocol(), "agent", r.UserAgent())
	go c.writeLoop()
	go c.closer()
	h.cfg.Serve(c.ctx, c)
	c.CloseWith(websocket.StatusNormalClosure, "")
	<-c.writerDone
	<-c.closerDone
	h.cfg.Log.Info("client gone", "client", c.id, "reason", c.closeReason())
}

func (h *Handler) track(c *Client) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.clients == nil {
		return false
	}
	h.clients[c] = struct{}{}
	h.wg.Add(1)
	return true
}

func (h *Handler) untrack(c *Client) {
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
	h.wg.Done()
}

// CloseAll closes every client with 1001 and refuses new ones; it returns once their Serve calls
// have returned.
func (h *Handler) CloseAll() {
	h.mu.Lock()
	clients := h.clients
	h.clients = nil
	h.mu.Unlock()
	for c := range clients {
		c.CloseWith(websocket.StatusGoingAway, "IDE closed")
	}
	h.wg.Wait()
}
