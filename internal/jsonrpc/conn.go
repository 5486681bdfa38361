package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
)

// Handler answers one incoming request or notification. A request runs in its own goroutine, so
// calls on one connection run concurrently; notifications run one at a time in arrival order on
// the reading goroutine, so they must not block. ctx is cancelled when the connection closes. For
// a notification the result is discarded. An *Error is sent as is; any other error is sent as
// CodeInternalError. A panic becomes a CodeInternalError answer.
type Handler func(ctx context.Context, req *Request) (result any, err error)

// ErrClosed is returned by calls on a closed connection.
var ErrClosed = errors.New("jsonrpc: connection closed")

// Conn is one JSON-RPC peer over a Stream. All methods are safe for concurrent use.
type Conn struct {
	stream  Stream
	handler Handler
	// OnError, if set before Run, is told about messages that could not be decoded or answered,
	// and about notifications whose handler failed.
	OnError func(error)
	// Latest, if set before Run, names notifications where only the newest counts (an editor's
	// selection). One read while the stream already holds the next message is held back, and
	// dropped unpassed to the handler if the next message is the same notification: in a flood
	// only the last of each batch read is decoded and handled. Anything else that arrives hands
	// the held one to the handler first, so order is kept and none is lost that is not replaced.
	Latest func(method string) bool

	held *Request // a Latest notification waiting for the next message; reader only

	ctx    context.Context
	cancel context.CancelFunc

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[string]chan *Message // outgoing calls by id
	closed  bool
	active  int           // running handlers, under mu
	idle    chan struct{} // closed when active drops to 0
}

// NewConn returns a connection; nothing is read until Run.
func NewConn(s Stream, h Handler) *Conn {
	ctx, cancel := context.WithCancel(context.Background())
	return &Conn{stream: s, handler: h, ctx: ctx, cancel: cancel, pending: map[string]chan *Message{}}
}

// Run reads and dispatches messages until the stream fails or ctx or Close ends it. It returns
// the read error (io.EOF on a clean end) after every handler has returned; handlers' contexts are
// cancelled first.
func (c *Conn) Run(ctx context.Context) error {
	defer context.AfterFunc(ctx, func() { c.Close() })()
	for {
		data, err := c.stream.Read(c.ctx)
		switch {
		case errors.Is(err, ErrFrameTooLarge):
			c.reply(nil, nil, Errorf(CodeInvalidRequest, "invalid request: message larger than %d bytes", MaxFrame))
		case err != nil:
			if c.held != nil {
				c.run(c.held)
			}
			c.shutdown()
			c.Drain(context.Background())
			return err
		default:
			c.dispatch(data)
		}
	}
}

func (c *Conn) dispatch(data []byte) {
	m, err := Decode(data)
	if h := c.held; h != nil { // the next message: unless it replaces h, h goes first
		c.held = nil
		if err != nil || m.ID != nil || m.Method != h.Method {
			c.run(h)
		}
	}
	if err != nil {
		c.report(err)
		// Answering a bad answer invites an answer to that: two peers would bounce errors
		// forever. JSON-RPC never answers a response.
		if !looksLikeResponse(data) {
			var id json.RawMessage
			if m != nil && m.Method != "" {
				id = m.ID
			}
			c.reply(id, nil, err.(*Error))
		}
		return
	}
	if m.IsResponse() {
		c.mu.Lock()
		ch := c.pending[string(m.ID)]
		delete(c.pending, string(m.ID))
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
		return
	}
	req := &Request{Method: m.Method, Params: m.Params, ID: m.ID}
	// Held only while the stream holds the start of another message already.
	if b, ok := c.stream.(interface{ Buffered() bool }); ok && !req.IsCall() && c.Latest != nil && c.Latest(req.Method) && b.Buffered() {
		c.held = req
		return
	}
	c.run(req)
}

// MaxCalls bounds the calls running at once on a connection (the CLI runs a handful). A peer
// sending requests faster than it reads answers had a goroutine for each (50,000 atMentioned:
// hundreds of MiB, issue 35 item 6); past the bound the reader answers busy at once.
const MaxCalls = 1024

// run handles req: a call in a goroutine of its own, a notification in order, on the reader.
func (c *Conn) run(req *Request) {
	c.mu.Lock()
	if req.IsCall() && c.active >= MaxCalls {
		c.mu.Unlock()
		c.reply(req.ID, nil, Errorf(CodeServerError, "busy: %d requests on this connection are still running; send more once they are answered", MaxCalls))
		return
	}
	if c.active == 0 {
		c.idle = make(chan struct{})
	}
	c.active++
	c.mu.Unlock()
	if !req.IsCall() {
		// Notifications are handled in order, on the reader: a later selection must never be
		// overtaken by an earlier one, and initialized must precede ide_connected.
		c.handle(req)
		return
	}
	go c.handle(req)
}

// looksLikeResponse reports whether data is an object with a result or error member and no
// method (null is none), names matched exactly as Decode matches them.
func looksLikeResponse(data []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	method, isMethod := probe["method"]
	_, isResult := probe["result"]
	_, isError := probe["error"]
	return (!isMethod || string(method) == "null") && (isResult || isError)
}

func (c *Conn) handle(req *Request) {
	defer func() { // after the answer was written
		c.mu.Lock()
		if c.active--; c.active == 0 {
			close(c.idle)
		}
		c.mu.Unlock()
	}()
	answered := false
	defer func() { // a panic in the handler or in encoding its result; one in After is only told
		if p := recover(); p != nil {
			err := Errorf(CodeInternalError, "internal error: handler for %q panicked: %v", req.Method, p)
			c.report(fmt.Errorf("%w\n%s", err, debug.Stack()))
			if req.IsCall() && !answered {
				c.reply(req.ID, nil, err)
			}
		}
	}()
	result, err := c.handler(c.ctx, req)
	if !req.IsCall() {
		if err != nil { // no one to answer: at least tell OnError
			c.report(fmt.Errorf("jsonrpc: notification %s: %w", req.Method, err))
		}
		return
	}
	var rpcErr *Error
	if err != nil && !errors.As(err, &rpcErr) {
		rpcErr = Errorf(CodeInternalError, "%v", err)
	}
	then, ok := result.(Then)
	if ok {
		result = then.Result
	}
	c.reply(req.ID, result, rpcErr)
	answered = true
	if ok && rpcErr == nil && then.After != nil {
		then.After()
	}
}

// Then is a handler's result with something to do once it was written: what must not reach
// the peer before the answer (an editor is sent nothing before its initialize is answered).
// After runs on the handler's goroutine; it should not block.
type Then struct {
	Result any
	After  func()
}

// reply answers id (null if nil) with result, or rpcErr if not nil. A nil result is sent as {}.
func (c *Conn) reply(id json.RawMessage, result any, rpcErr *Error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	var msg net.Buffers
	var err error
	if rpcErr == nil {
		if msg, err = envelope(id, "", "result", result); err != nil {
			rpcErr = Errorf(CodeInternalError, "internal error: encoding result: %v", err)
		}
	}
	if rpcErr != nil {
		msg, err = envelope(id, "", "error", rpcErr)
	}
	if err != nil {
		c.report(err)
		return
	}
	if err := writeMsg(c.ctx, c.stream, msg); err != nil && c.ctx.Err() == nil {
		c.report(fmt.Errorf("jsonrpc: writing answer: %w", err))
	}
}

func (c *Conn) report(err error) {
	if c.OnError != nil {
		c.OnError(err)
	}
}

// Call sends a request and waits for its answer, decoding the result into result (if non-nil)
// as encoding/json does, except that a duplicate key at any level is refused.
// A peer's error answer is returned as *Error.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	id := strconv.FormatInt(c.nextID.Add(1), 10)
	msg, err := envelope(json.RawMessage(id), method, "params", params)
	if err != nil {
		return fmt.Errorf("jsonrpc: encoding %s params: %w", method, err)
	}
	ch := make(chan *Message, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	c.pending[id] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}
	if err := writeMsg(ctx, c.stream, msg); err != nil {
		forget()
		return fmt.Errorf("jsonrpc: sending %s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return ErrClosed
		}
		if m.Error != nil {
			return m.Error
		}
		if result != nil {
			if err := check(m.Result); err != nil { // a duplicate key (Decode let it pass)
				return fmt.Errorf("jsonrpc: decoding %s result: %w", method, dupOf(err))
			}
			if err := json.Unmarshal(m.Result, result); err != nil {
				return fmt.Errorf("jsonrpc: decoding %s result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		forget()
		return ctx.Err()
	}
}

// Notify sends a notification.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	msg, err := envelope(nil, method, "params", params)
	if err != nil {
		return err
	}
	if c.ctx.Err() != nil {
		return ErrClosed
	}
	return writeMsg(ctx, c.stream, msg)
}

// Drain waits until no handler is running, so every request received so far has been answered
// (its answer handed to the Stream), or until ctx ends. Messages keep being read and handled
// meanwhile. A server shutting down calls it before closing the transport, so that answers it
// has already decided on (a settled openDiff) reach the peer.
func (c *Conn) Drain(ctx context.Context) error {
	c.mu.Lock()
	if c.active == 0 {
		c.mu.Unlock()
		return nil
	}
	idle := c.idle
	c.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Done is closed when the connection is closing.
func (c *Conn) Done() <-chan struct{} { return c.ctx.Done() }

// Close closes the stream; Run returns once handlers are done. Pending calls fail with ErrClosed.
func (c *Conn) Close() error {
	c.shutdown()
	return c.stream.Close()
}

func (c *Conn) shutdown() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	c.cancel()
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}
