package fakeapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a running fake Messages API on 127.0.0.1.
type Server struct {
	URL string // http://127.0.0.1:PORT, for ANTHROPIC_BASE_URL

	srv *httptest.Server

	mu      sync.Mutex
	script  []Turn
	played  int
	reqs    []Request
	changed chan struct{} // closed and replaced whenever reqs grows
}

// New starts a server with an empty script. Close it when done.
func New() *Server {
	s := &Server{changed: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server and waits for in-flight requests.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Push appends turns to the script. Main-conversation requests consume them
// in order.
func (s *Server) Push(turns ...Turn) {
	s.mu.Lock()
	s.script = append(s.script, turns...)
	s.mu.Unlock()
}

// Unplayed returns how many scripted turns no request has consumed yet.
func (s *Server) Unplayed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script) - s.played
}

// Requests returns a copy of every request so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// MainRequests returns the requests that consumed (or tried to consume) a
// scripted turn.
func (s *Server) MainRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Main {
			out = append(out, r)
		}
	}
	return out
}

// Wait blocks until cond holds for the recorded requests or ctx ends.
func (s *Server) Wait(ctx context.Context, cond func([]Request) bool) error {
	for {
		s.mu.Lock()
		reqs, ch := append([]Request(nil), s.reqs...), s.changed
		s.mu.Unlock()
		if cond(reqs) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitMain blocks until at least n main requests arrived and returns the nth
// (1-based).
func (s *Server) WaitMain(ctx context.Context, n int) (Request, error) {
	var got Request
	err := s.Wait(ctx, func(reqs []Request) bool {
		k := 0
		for _, r := range reqs {
			if r.Main {
				k++
				if k == n {
					got = r
					return true
				}
			}
		}
		return false
	})
	if err != nil {
		return Request{}, fmt.Errorf("waiting for main request #%d: %w", n, err)
	}
	return got, nil
}

// MustMain waits up to d for the nth (1-based) main request and returns it; when none comes it
// fails the test, showing what screen returns (the CLI's terminal; nil for none).
func (s *Server) MustMain(t testing.TB, d time.Duration, n int, screen func() string) Request {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	r, err := s.WaitMain(ctx, n)
	if err != nil {
		scr := ""
		if screen != nil {
			scr = "; screen:\n" + screen()
		}
		t.Fatalf("no request #%d from the CLI: %v%s", n, err, scr)
	}
	return r
}

// Dump renders the recorded requests for a failure message.
func (s *Server) Dump() string {
	var b strings.Builder
	for _, r := range s.Requests() {
		kind := "side"
		if r.Main {
			kind = fmt.Sprintf("main turn=%d", r.Turn)
		}
		fmt.Fprintf(&b, "--- #%d %s %s?%s (%s)\n", r.Seq, r.Method, r.Path, r.Query, kind)
		if r.Main {
			fmt.Fprintf(&b, "last user message:\n%s\n", r.LastUserText())
		} else {
			raw := string(r.Raw)
			if len(raw) > 600 {
				raw = raw[:600] + "..."
			}
			fmt.Fprintf(&b, "%s\n", raw)
		}
	}
	fmt.Fprintf(&b, "--- unplayed turns: %d\n", s.Unplayed())
	return b.String()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	req := Request{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Header: r.Header.Clone(), Raw: raw, Body: parseBody(raw), Turn: -1,
	}
	isMessages := r.Method == http.MethodPost && r.URL.Path == "/v1/messages"
	req.Main = isMessages && IsMain(req.Body)

	turn := Text("ok")
	s.mu.Lock()
	if req.Main && s.played < len(s.script) {
		req.Turn = s.played
		turn = s.script[s.played]
		s.played++
	} else if req.Main {
		turn = Text("fakeapi: script exhausted")
	}
	req.Seq = len(s.reqs) + 1
	s.reqs = append(s.reqs, req)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()

	switch {
	case isMessages:
		s.answerMessages(w, req, turn)
	case r.URL.Path == "/v1/messages/count_tokens":
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": 100})
	case r.Method == http.MethodHead || r.URL.Path == "/":
		w.WriteHeader(http.StatusOK)
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"type": "error",
			"error": map[string]any{"type": "not_found_error", "message": "fakeapi: no route " + r.URL.Path}})
	}
}

func (s *Server) answerMessages(w http.ResponseWriter, req Request, turn Turn) {
	id := fmt.Sprintf("msg_fake%04d", req.Seq)
	if stream, _ := req.Body["stream"].(bool); !stream {
		msg, err := message(id, turn)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, http.StatusOK, msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("request-id", "req_fake"+id)
	w.WriteHeader(http.StatusOK)
	_ = writeSSE(w, id, turn)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
