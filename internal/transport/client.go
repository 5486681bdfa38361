package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
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

	queue      chan net.Buffers // a message, in one piece or several (WritePieces)
	latestSig  chan struct{}    // buffered 1: write the latest-wins message now
	writerDone chan struct{}
	sendqEmpty func() bool   // whether the socket's kernel send queue is empty; nil if unknown
	direct     atomic.Uint64 // messages written by deliverLatest's caller (for tests)

	latestMu sync.Mutex // guards the fields below and reason
	latest   []byte     // the newest unsent selection; older ones are dropped
	armed    bool       // latest is on its way: held by the pacer or the writer was told
	latestAt time.Time  // when the last latest-wins message was taken for writing
	writing  int        // writes in progress (the writer's, or a direct one)

	closeOnce  sync.Once
	closeCode  websocket.StatusCode
	closeText  string
	closerDone chan struct{}
	reason     string // why the connection ended, for the log
}

func newClient(h *Handler, ws *websocket.Conn, id uint64, conn net.Conn) *Client {
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		h: h, ws: ws, id: id, ctx: ctx, cancel: cancel,
		queue: make(chan net.Buffers, h.cfg.QueueLen), latestSig: make(chan struct{}, 1),
		writerDone: make(chan struct{}), closerDone: make(chan struct{}),
	}
	if conn != nil && h.cfg.Trace == nil { // trace lines are written by the writer only
		c.sendqEmpty = sendQueue(conn)
	}
	return c
}

// ID is the connection's number, unique within the Handler.
func (c *Client) ID() uint64 { return c.id }

// Read returns the next text message.
func (c *Client) Read(ctx context.Context) ([]byte, error) {
	// Not ctx: cancelling a Read makes the library close with its own code. Close ends it instead.
	typ, r, err := c.ws.Reader(context.Background())
	var data []byte
	if err == nil && typ == websocket.MessageText {
		data, err = readMessage(r)
	}
	if err != nil {
		// coder/websocket refuses an unmasked client frame (RFC 6455 5.1: the server MUST close
		// the connection) but returns a plain error and leaves the close code to us: 1002, a
		// protocol error, not 1000. The library's message is matched; TestUnmaskedFrameCloses1002
		// (internal/bridge) pins it.
		if strings.Contains(err.Error(), "unmasked frame") {
			c.CloseWith(websocket.StatusProtocolError, "unmasked frame")
		}
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
	return c.WritePieces(ctx, net.Buffers{msg})
}

// WritePieces is Write for a message in pieces (jsonrpc.PiecesWriter): it goes out as one
// message in several frames, each piece from where it is, so a big text is not copied.
func (c *Client) WritePieces(ctx context.Context, msg net.Buffers) error {
	c.enqueue(msg)
	if c.ctx.Err() != nil {
		return ErrQueueFull
	}
	return nil
}

// Send queues msg, closing the client with StatusQueueFull when it is not reading.
func (c *Client) Send(msg []byte) { c.enqueue(net.Buffers{msg}) }

func (c *Client) enqueue(msg net.Buffers) {
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

// SendLatest sends msg unless a newer SendLatest replaces it before it goes out. One client is
// sent at most one such message per latestEvery: one that comes sooner waits for the interval to
// end (the pacer's tick), replaced by any newer one meanwhile. The caller is never blocked on the
// network: a due message is written at once only when nothing else is being written to this
// client and its socket's send queue is empty, so the write cannot wait for the peer; otherwise
// the client's writer writes it.
func (c *Client) SendLatest(msg []byte) {
	c.latestMu.Lock()
	if c.ctx.Err() != nil {
		c.latestMu.Unlock()
		return
	}
	c.latest = msg
	if c.armed {
		c.latestMu.Unlock()
		return // it replaces the one already on its way: no wake-up per update
	}
	c.armed = true
	due := c.latestAt.Add(latestEvery)
	c.latestMu.Unlock()
	if now := time.Now(); now.Add(paceSlack).Before(due) {
		c.h.pacer.hold(c, due)
	} else {
		c.deliverLatest(now)
	}
}

// latestEvery bounds how often one client is sent a latest-wins message (a selection): a flood
// from the editor costs each client at most one write per interval (less paceSlack, so that a
// sender that itself wakes every interval, the editor channel's reader, finds it due), and the
// newest selection still goes out within it, inside the editors' 50 ms debounce
// (internal/editors/stdio/stdin_unix.go has the measurements).
var latestEvery = 25 * time.Millisecond

// directMax bounds a message written directly by SendLatest's caller: into an empty send queue
// a write this small never waits (the kernel's send buffer is larger).
const directMax = 8 << 10

// deliverLatest writes the latest-wins message now: directly when that cannot block, else
// through the writer. A direct write saves the writer's wake-up, the largest part of a
// selection's latency to 16 clients on two cores.
func (c *Client) deliverLatest(now time.Time) {
	c.latestMu.Lock()
	msg := c.latest
	direct := msg != nil && c.sendqEmpty != nil && c.writing == 0 && len(msg) <= directMax &&
		len(c.queue) == 0 && c.ctx.Err() == nil && c.sendqEmpty()
	if direct {
		c.latest, c.armed, c.latestAt = nil, false, now
		c.writing++
	}
	c.latestMu.Unlock()
	if !direct {
		c.wakeWriter()
		return
	}
	c.direct.Add(1)
	err := c.ws.Write(context.Background(), websocket.MessageText, msg)
	c.latestMu.Lock()
	c.writing--
	c.latestMu.Unlock()
	if err != nil {
		c.setReason("write failed: " + err.Error())
		c.CloseWith(websocket.StatusGoingAway, "write failed")
	}
}

func (c *Client) wakeWriter() {
	select {
	case c.latestSig <- struct{}{}:
	default:
	}
}

// takeLatest hands the latest-wins message, if any, to the writer.
func (c *Client) takeLatest() []byte {
	c.latestMu.Lock()
	defer c.latestMu.Unlock()
	msg := c.latest
	c.latest, c.armed = nil, false
	if msg != nil {
		c.latestAt = time.Now()
		c.writing++
	}
	return msg
}

func (c *Client) setWriting(delta int) {
	c.latestMu.Lock()
	c.writing += delta
	c.latestMu.Unlock()
}

func (c *Client) writeLoop() {
	defer close(c.writerDone)
	// Keepalive: the CLI sends no pings but answers ours; one that does not answer within an
	// interval is gone (or stopped) and is closed, which makes a live CLI reconnect.
	ping := time.NewTicker(c.h.cfg.Keepalive)
	defer ping.Stop()
	for {
		var msg net.Buffers
		select {
		case <-c.ctx.Done():
			c.flush()
			return
		case msg = <-c.queue:
			c.setWriting(1)
		case <-c.latestSig:
			latest := c.takeLatest()
			if latest == nil {
				continue
			}
			msg = net.Buffers{latest}
		case <-ping.C:
			c.setWriting(1) // a latest message is left to us meanwhile (deliverLatest wakes us)
			ctx, cancel := context.WithTimeout(c.ctx, c.h.cfg.Keepalive)
			err := c.ws.Ping(ctx)
			cancel()
			c.setWriting(-1)
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
			c.setWriting(-1)
			return
		}
		// Not c.ctx: a close must not abort a write half-way (that cuts the TCP connection before
		// the close frame); the closer waits for this loop instead.
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		err := c.write(ctx, msg)
		cancel()
		c.setWriting(-1)
		if err != nil {
			c.setReason("write failed: " + err.Error())
			c.CloseWith(websocket.StatusGoingAway, "write failed")
			return
		}
		c.traceOut(msg)
	}
}

// write writes one message: a message in pieces as frames of one message (RFC 6455 §5.4), one
// per piece, which every client must reassemble.
func (c *Client) write(ctx context.Context, msg net.Buffers) error {
	if len(msg) == 1 {
		return c.ws.Write(ctx, websocket.MessageText, msg[0])
	}
	w, err := c.ws.Writer(ctx, websocket.MessageText)
	if err != nil {
		return err
	}
	for _, p := range msg {
		if _, err = w.Write(p); err != nil {
			break
		}
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
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
			if c.write(ctx, msg) != nil {
				return
			}
			c.traceOut(msg)
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

func (c *Client) traceOut(msg net.Buffers) {
	if c.h.cfg.Trace != nil {
		c.trace("out", bytes.Join(msg, nil))
	}
}

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
