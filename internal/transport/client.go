package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Timings of a client's writer; variables so tests can shorten them.
var (
	writeTimeout = 30 * time.Second
)

// StatusQueueFull closes a client that does not read its messages.
const StatusQueueFull = websocket.StatusPolicyViolation

// ErrQueueFull is returned by Write when the client's queue is full; the client is then closed.
var ErrQueueFull = errors.New("transport: send queue full, client closed")

// Client is one accepted WebSocket connection. Read is for one reader; Write, Send, SendLatest and
// Close may be called concurrently from any goroutine and never block on the network: messages
// go through a bounded queue drained by the client's own writer, so a slow client delays only
// itself.
type Client struct {
	h  *Handler
	ws *websocket.Conn
	id uint64

	ctx    context.Context
	cancel context.CancelFunc

	queue      chan []byte
	latestMu   sync.Mutex
	latest     []byte        // the newest unsent selection; older ones are dropped
	latestSig  chan struct{} // buffered 1
	writerDone chan struct{}

	closeOnce  sync.Once
	closeCode  websocket.StatusCode
	closeText  string
	closerDone chan struct{}
	reason     string // why the connection ended, for the log
}

func newClient(h *Handler, ws *websocket.Conn, id uint64) *Client {
	ctx, cancel := context.WithCancel(context.Background())
	return &Client{
		h: h, ws: ws, id: id, ctx: ctx, cancel: cancel,
		queue: make(chan []byte, h.cfg.QueueLen), latestSig: make(chan struct{}, 1),
		writerDone: make(chan struct{}), closerDone: make(chan struct{}),
	}
}

// ID is the connection's number, unique within the Handler.
func (c *Client) ID() uint64 { return c.id }

// Read returns the next text message.
func (c *Client) Read(ctx context.Context) ([]byte, error) {
	// Not ctx: cancelling a Read makes the library close with its own code. Close ends it instead.
	typ, data, err := c.ws.Read(context.Background())
	if err != nil {
		c.CloseWith(websocket.StatusNormalClosure, "")
		if st := websocket.CloseStatus(err); st == websocket.StatusMessageTooBig {
			c.setReason(fmt.Sprintf("message over %d bytes", c.h.cfg.ReadLimit))
		}
		return nil, err
	}
	if typ != websocket.MessageText {
		c.trace("in", []byte(`"<binary frame>"`))
		c.CloseWith(websocket.StatusUnsupportedData, "binary frames are not JSON-RPC")
		return nil, errors.New("transport: binary frame")
	}
	c.trace("in", data)
	return data, nil
}

// Write queues msg; it fails (and closes the client) when the queue is full.
func (c *Client) Write(ctx context.Context, msg []byte) error {
	c.Send(msg)
	if c.ctx.Err() != nil {
		return ErrQueueFull
	}
	return nil
}

// Send queues msg, closing the client with StatusQueueFull when it is not reading.
func (c *Client) Send(msg []byte) {
	if c.ctx.Err() != nil {
		return
	}
	select {
	case c.queue <- msg:
	default:
		c.setReason("send queue full")
		c.CloseWith(StatusQueueFull, "send queue full: client is not reading")
	}
}

// SendLatest sends msg unless a newer SendLatest replaces it before the writer gets to it.
func (c *Client) SendLatest(msg []byte) {
	c.latestMu.Lock()
	pending := c.latest != nil
	c.latest = msg
	c.latestMu.Unlock()
	if pending {
		return // the writer was already told, or holds it for latestEvery: no wake-up per update
	}
	select {
	case c.latestSig <- struct{}{}:
	default:
	}
}

// latestEvery bounds how often one client is sent a latest-wins message (a selection): a flood
// from the editor costs each client at most one write per interval, and the newest selection
// still goes out within it, well inside the editors' 50 ms debounce.
var latestEvery = 20 * time.Millisecond

func (c *Client) takeLatest() []byte {
	c.latestMu.Lock()
	defer c.latestMu.Unlock()
	msg := c.latest
	c.latest = nil
	return msg
}

func (c *Client) writeLoop() {
	defer close(c.writerDone)
	// Keepalive: the CLI sends no pings but answers ours; one that does not answer within an
	// interval is gone (or stopped) and is closed, which makes a live CLI reconnect.
	ping := time.NewTicker(c.h.cfg.Keepalive)
	defer ping.Stop()
	var (
		lastLatest time.Time
		hold       <-chan time.Time // set while a latest message waits for latestEvery to pass
	)
	for {
		var msg []byte
		select {
		case <-c.ctx.Done():
			c.flush()
			return
		case msg = <-c.queue:
		case <-c.latestSig:
			if wait := latestEvery - time.Since(lastLatest); wait > 0 {
				if hold == nil {
					hold = time.After(wait) // the newest one goes out when the interval ends
				}
				continue
			}
			if msg = c.takeLatest(); msg == nil {
				continue
			}
			lastLatest = time.Now()
		case <-hold:
			hold = nil
			if msg = c.takeLatest(); msg == nil {
				continue
			}
			lastLatest = time.Now()
		case <-ping.C:
			ctx, cancel := context.WithTimeout(c.ctx, c.h.cfg.Keepalive)
			err := c.ws.Ping(ctx)
			cancel()
			if err != nil && c.ctx.Err() == nil {
				c.setReason("keepalive ping failed")
				c.CloseWith(websocket.StatusGoingAway, "no answer to ping")
				return
			}
			continue
		}
		if c.ctx.Err() != nil && c.closeCode == StatusQueueFull {
			// select picks at random among ready cases: a client closed for not reading gets
			// nothing more, its close frame goes out next.
			return
		}
		// Not c.ctx: a close must not abort a write half-way (that cuts the TCP connection before
		// the close frame); the closer waits for this loop instead.
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		err := c.ws.Write(ctx, websocket.MessageText, msg)
		cancel()
		if err != nil {
			c.setReason("write failed: " + err.Error())
			c.CloseWith(websocket.StatusGoingAway, "write failed")
			return
		}
		c.trace("out", msg)
	}
}

// CloseWith closes the connection with code and reason; later calls do nothing. It returns at once;
// the client's closer goroutine does the closing handshake.
func (c *Client) CloseWith(code websocket.StatusCode, reason string) error {
	c.closeOnce.Do(func() {
		c.closeCode, c.closeText = code, reason
		c.cancel()
	})
	return nil
}

// closer runs the closing handshake once Close was called (the cancel orders the fields).
func (c *Client) closer() {
	defer close(c.closerDone)
	<-c.ctx.Done()
	if c.closeCode == StatusQueueFull {
		// Its writer may be stuck on a full TCP buffer: Close gives up on the handshake after
		// the library's own timeout and cuts the connection, which ends the writer too.
		c.ws.Close(c.closeCode, c.closeText)
		return
	}
	// Queued answers first, then the close frame; but a peer that stopped reading must not
	// hold up a shutdown: past the flush bound the connection is cut without a handshake.
	t := time.NewTimer(2 * flushTimeout)
	defer t.Stop()
	select {
	case <-c.writerDone:
		c.ws.Close(c.closeCode, c.closeText)
	case <-t.C:
		c.ws.CloseNow()
	}
}

// flushTimeout bounds writing what is still queued when a client is closed.
var flushTimeout = 500 * time.Millisecond

// flush writes the messages still queued (answers already given, such as a settled openDiff)
// before the closing handshake. A client closed for not reading gets nothing more.
func (c *Client) flush() {
	if c.closeCode == StatusQueueFull {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	for {
		select {
		case msg := <-c.queue:
			if c.ws.Write(ctx, websocket.MessageText, msg) != nil {
				return
			}
			c.trace("out", msg)
		default:
			return
		}
	}
}

func (c *Client) setReason(r string) {
	c.latestMu.Lock()
	if c.reason == "" {
		c.reason = r
	}
	c.latestMu.Unlock()
}

func (c *Client) closeReason() string {
	c.latestMu.Lock()
	defer c.latestMu.Unlock()
	return c.reason
}

// Done is closed when the client is closing.
func (c *Client) Done() <-chan struct{} { return c.ctx.Done() }

func (c *Client) trace(dir string, msg []byte) {
	w := c.h.cfg.Trace
	if w == nil {
		return
	}
	raw := json.RawMessage(msg)
	if !json.Valid(msg) {
		b, _ := json.Marshal(string(msg))
		raw = b
	}
	line, _ := json.Marshal(struct {
		Client uint64          `json:"client"`
		Dir    string          `json:"dir"`
		Msg    json.RawMessage `json:"msg"`
	}{c.id, dir, raw})
	c.h.traceMu.Lock()
	w.Write(append(line, '\n'))
	c.h.traceMu.Unlock()
}

// Close closes the connection normally (1000).
func (c *Client) Close() error { return c.CloseWith(websocket.StatusNormalClosure, "") }
