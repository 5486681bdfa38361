package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// pair connects two peers over in-memory pipes and runs both until the test ends.
func pair(t *testing.T, ha, hb jsonrpc.Handler) (a, b *jsonrpc.Conn) {
	t.Helper()
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	a = jsonrpc.NewConn(jsonrpc.NewLineStream(ar, aw), ha)
	b = jsonrpc.NewConn(jsonrpc.NewLineStream(br, bw), hb)
	run(t, a, ar)
	run(t, b, br)
	return a, b
}

// run runs c; on cleanup it closes c and its read side and waits for Run to return.
func run(t *testing.T, c *jsonrpc.Conn, r io.Closer) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(context.Background())
	}()
	t.Cleanup(func() {
		c.Close()
		r.Close()
		<-done
	})
}

func echo(ctx context.Context, req *jsonrpc.Request) (any, error) { return req.Params, nil }

func TestCall(t *testing.T) {
	a, _ := pair(t, echo, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case "echo":
			return req.Params, nil
		case "fail":
			return nil, jsonrpc.Errorf(-32001, "no diff named %q", "t")
		case "plain":
			return nil, errors.New("disk full")
		case "nil":
			return nil, nil
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
	})
	var got map[string]string
	if err := a.Call(testbin.Ctx(t), "echo", map[string]string{"k": "日本"}, &got); err != nil || got["k"] != "日本" {
		t.Errorf("echo = %v, %v", got, err)
	}
	// An *Error is sent as is; any other error is sent as CodeInternalError.
	err := a.Call(testbin.Ctx(t), "fail", nil, nil)
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != -32001 || e.Message != `no diff named "t"` {
		t.Errorf("fail = %v", err)
	}
	if err := a.Call(testbin.Ctx(t), "plain", nil, nil); !errors.As(err, &e) || e.Code != jsonrpc.CodeInternalError || !strings.Contains(e.Message, "disk full") {
		t.Errorf("plain = %v", err)
	}
	var raw json.RawMessage
	if err := a.Call(testbin.Ctx(t), "nil", nil, &raw); err != nil || string(raw) != "{}" {
		t.Errorf("a nil result = %s, %v; want {}", raw, err)
	}
}

func TestHandlersRunConcurrently(t *testing.T) {
	// "calls on one connection run concurrently": each of two calls waits for the other to
	// have started, which only works if neither blocks the reader.
	started := make(chan struct{}, 2)
	a, _ := pair(t, echo, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		started <- struct{}{}
		for len(started) < 2 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
		return nil, nil
	})
	errc := make(chan error, 2)
	for range 2 {
		go func() { errc <- a.Call(testbin.Ctx(t), "wait", nil, nil) }()
	}
	for range 2 {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
}

type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("marshal kaboom") }

func TestPanicBecomesInternalError(t *testing.T) {
	reports := make(chan error, 10)
	a, b := pair(t, echo, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case "boom":
			panic("kaboom")
		case "fails":
			return nil, errors.New("bad params")
		case "badResult":
			return panicky{}, nil
		case "badAfter":
			return jsonrpc.Then{Result: "done", After: func() { panic("after kaboom") }}, nil
		}
		return "alive", nil
	})
	b.OnError = func(err error) { reports <- err }
	report := func(want string) {
		t.Helper()
		select {
		case err := <-reports:
			if !strings.Contains(err.Error(), want) {
				t.Errorf("OnError(%v), want %q", err, want)
			}
		case <-testbin.Ctx(t).Done():
			t.Fatalf("OnError never heard of %q", want)
		}
	}
	err := a.Call(testbin.Ctx(t), "boom", nil, nil)
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != jsonrpc.CodeInternalError || !strings.Contains(e.Message, "kaboom") {
		t.Errorf("boom = %v, want -32603", err)
	}
	report("kaboom")
	var s string
	if err := a.Call(testbin.Ctx(t), "ping", nil, &s); err != nil || s != "alive" {
		t.Errorf("after a panic: %q, %v; the connection must survive", s, err)
	}
	// A result whose encoding panics is answered too; After panics after the answer: only reported.
	if err := a.Call(testbin.Ctx(t), "badResult", nil, nil); !errors.As(err, &e) || e.Code != jsonrpc.CodeInternalError {
		t.Errorf("badResult = %v, want -32603", err)
	}
	report("marshal kaboom")
	if err := a.Call(testbin.Ctx(t), "badAfter", nil, &s); err != nil || s != "done" {
		t.Errorf("badAfter = %q, %v; want its answer", s, err)
	}
	report("after kaboom")
	a.Notify(testbin.Ctx(t), "boom", nil) // a panicking notification is not answered, only reported
	report("kaboom")
	// A failed notification has no one to answer; OnError hears of it.
	a.Notify(testbin.Ctx(t), "fails", nil)
	report("bad params")
	if err := a.Call(testbin.Ctx(t), "ping", nil, &s); err != nil {
		t.Errorf("after failed notifications: %v", err)
	}
	select {
	case err := <-reports:
		t.Errorf("unexpected report %v", err)
	default:
	}
}

func TestCallOnClose(t *testing.T) {
	block := make(chan struct{})
	started := make(chan struct{}, 1)
	a, _ := pair(t, echo, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		started <- struct{}{}
		<-block
		return nil, nil
	})
	defer close(block)
	errc := make(chan error, 1)
	go func() { errc <- a.Call(testbin.Ctx(t), "slow", nil, nil) }()
	<-started // the call is on the wire and waits for its answer
	a.Close()
	// "Pending calls fail with ErrClosed."
	if err := <-errc; !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("pending call on Close = %v, want ErrClosed", err)
	}
	if err := a.Call(testbin.Ctx(t), "late", nil, nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("call after Close = %v, want ErrClosed", err)
	}
	if err := a.Notify(testbin.Ctx(t), "late", nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("notify after Close = %v, want ErrClosed", err)
	}
	select {
	case <-a.Done():
	default:
		t.Error("Done is not closed after Close")
	}
}

func TestCallContext(t *testing.T) {
	a, _ := pair(t, echo, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		<-ctx.Done() // never answers while the connection lives
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithCancel(testbin.Ctx(t))
	cancel()
	if err := a.Call(ctx, "never", nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Call with a cancelled ctx = %v", err)
	}
}

// rawPeer is a peer that writes bytes as given and reads frames as they come.
func rawPeer(t *testing.T, h jsonrpc.Handler) (c *jsonrpc.Conn, send func(string), recv func() string) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	c = jsonrpc.NewConn(jsonrpc.NewLineStream(ar, aw), h)
	run(t, c, ar)
	t.Cleanup(func() { bw.Close(); br.Close() })
	peer := jsonrpc.NewLineStream(br, bw)
	send = func(s string) {
		if _, err := io.WriteString(bw, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	recv = func() string {
		b, err := peer.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	return c, send, recv
}

func TestBadMessagesAreAnswered(t *testing.T) {
	_, send, recv := rawPeer(t, echo)
	for _, tt := range []struct{ in, want string }{
		{`{"jsonrpc":`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{`[1]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`{"jsonrpc":"1.0","id":4,"method":"x"}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":5,"method":"x","params":[1]}`, `{"jsonrpc":"2.0","id":5,"result":[1]}`},
	} {
		send(tt.in)
		if got := recv(); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s answered %s, want %s...", tt.in, got, tt.want)
		}
	}
}

func TestBadResponsesAreNotAnswered(t *testing.T) {
	// Two peers that answered each other's malformed answers would bounce errors forever:
	// a response, however broken, gets no answer. JSON-RPC 2.0: "The Server MUST NOT reply to
	// a Notification"; a Response is not a Request at all.
	var bad atomic.Int32
	c, send, recv := rawPeer(t, echo)
	c.OnError = func(error) { bad.Add(1) }
	send(`{"jsonrpc":"1.0","id":9,"result":{}}`)
	send(`{"jsonrpc":"2.0","id":{},"error":{"code":1,"message":"x"}}`)
	send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`) // valid: no answer, no report
	send(`{"jsonrpc":"2.0","id":77,"result":{}}`)                             // answers no call of ours: ignored
	send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if got := recv(); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("the first answer is %s; the bad responses were answered", got)
	}
	if bad.Load() != 2 {
		t.Errorf("OnError told of %d bad messages, want 2", bad.Load())
	}

	// And two Conns do not ping-pong: a garbage line draws one error answer, which the sender
	// accepts silently.
	var aBad, bBad atomic.Int32
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	as := jsonrpc.NewLineStream(ar, aw)
	a, b := jsonrpc.NewConn(as, echo), jsonrpc.NewConn(jsonrpc.NewLineStream(br, bw), echo)
	a.OnError = func(error) { aBad.Add(1) }
	b.OnError = func(error) { bBad.Add(1) }
	run(t, a, ar)
	run(t, b, br)
	as.Write(testbin.Ctx(t), []byte(`{not json`))
	if err := a.Call(testbin.Ctx(t), "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	if aBad.Load() != 0 || bBad.Load() != 1 {
		t.Errorf("bad messages seen: sender %d, receiver %d; want 0 and 1", aBad.Load(), bBad.Load())
	}
}

func TestOversizeMessageAnswered(t *testing.T) {
	// "a larger Content-Length is answered with -32600 and the bytes are skipped"
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	st := jsonrpc.NewLineStream(ar, aw)
	jsonrpc.SetMaxFrame(st, 1024)
	c := jsonrpc.NewConn(st, echo)
	run(t, c, ar)
	t.Cleanup(func() { bw.Close(); br.Close() })
	go io.WriteString(bw, `{"jsonrpc":"2.0","id":1,"method":"x","params":"`+strings.Repeat("a", 4096)+"\"}\n"+`{"jsonrpc":"2.0","id":2,"method":"x","params":"ok"}`+"\n")
	peer := jsonrpc.NewLineStream(br, bw)
	for _, want := range []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`, `{"jsonrpc":"2.0","id":2,"result":"ok"}`} {
		b, err := peer.Read(testbin.Ctx(t))
		if err != nil || !strings.HasPrefix(string(b), want) {
			t.Errorf("got %s, %v; want %s", b, err, want)
		}
	}
}

func TestDrain(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	a, b := pair(t, echo, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		started <- struct{}{}
		<-release
		return "settled", nil
	})
	if err := b.Drain(testbin.Ctx(t)); err != nil {
		t.Errorf("Drain with nothing running = %v", err)
	}
	answer := make(chan string, 1)
	go func() {
		var s string
		a.Call(testbin.Ctx(t), "openDiff", nil, &s)
		answer <- s
	}()
	<-started
	ctx, cancel := context.WithCancel(testbin.Ctx(t))
	cancel()
	if err := b.Drain(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Drain while a handler runs, ctx cancelled = %v", err)
	}
	drained := make(chan error, 1)
	go func() { drained <- b.Drain(testbin.Ctx(t)) }()
	close(release)
	if err := <-drained; err != nil {
		t.Errorf("Drain = %v", err)
	}
	// "every request received so far has been answered": the answer is on its way even if the
	// connection closes right now.
	b.Close()
	if s := <-answer; s != "settled" {
		t.Errorf("answer after Drain and Close = %q", s)
	}
}

// Issue 35 item 6: a peer that sends requests without waiting for their answers gets at most
// MaxCalls running at once; the next are answered at once that the bridge is busy, and once
// the running ones are answered new calls run again.
func TestCallsInFlightBounded(t *testing.T) {
	release := make(chan struct{})
	var running atomic.Int64
	a, _ := pair(t, echo, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "block" {
			running.Add(1)
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return "ok", nil
	})
	const extra = 5
	errs := make(chan error, jsonrpc.MaxCalls+extra)
	for range jsonrpc.MaxCalls {
		go func() { errs <- a.Call(testbin.Ctx(t), "block", nil, nil) }()
	}
	for running.Load() < jsonrpc.MaxCalls {
		time.Sleep(time.Millisecond)
	}
	for range extra {
		err := a.Call(testbin.Ctx(t), "block", nil, nil)
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != jsonrpc.CodeServerError || !strings.Contains(e.Message, "busy") {
			t.Fatalf("call %d past MaxCalls: %v, want a -32000 busy answer", jsonrpc.MaxCalls+1, err)
		}
	}
	if n := running.Load(); n != jsonrpc.MaxCalls {
		t.Fatalf("%d handlers ran, want %d", n, jsonrpc.MaxCalls)
	}
	close(release)
	for range jsonrpc.MaxCalls {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Call(testbin.Ctx(t), "echo", "x", nil); err != nil {
		t.Fatalf("a call after the burst: %v", err)
	}
}
