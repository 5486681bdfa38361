package transport_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// DecodePost over a real loopback socket: each refusal is answered with its status and text,
// and only a POST whose body decodes reaches the endpoint.
func TestDecodePost(t *testing.T) {
	type body struct {
		Path string `json:"path"`
	}
	const max = 64
	for _, strict := range []bool{false, true} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var b body
			if transport.DecodePost(w, r, max, strict, &b) {
				transport.ReplyJSON(w, b)
			}
		}))
		do := func(method, data string) (*http.Response, string) {
			t.Helper()
			req, _ := http.NewRequest(method, srv.URL, strings.NewReader(data))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			text, _ := io.ReadAll(resp.Body)
			return resp, strings.TrimSpace(string(text))
		}
		for _, c := range []struct {
			name, method, body string
			status             int
			text               string
		}{
			{"a POST", "POST", `{"path":"/a"}`, 200, `{"path":"/a"}`},
			{"a GET", "GET", `{"path":"/a"}`, 405, "only POST"},
			{"a PUT", "PUT", `{"path":"/a"}`, 405, "only POST"},
			{"a body over max", "POST", `{"path":"` + strings.Repeat("a", max) + `"}`, 413, "request body over 64 bytes"},
			{"no body", "POST", ``, 400, "bad request body: EOF"},
			{"not JSON", "POST", `{"path":`, 400, "bad request body: unexpected EOF"},
			{"a wrong type", "POST", `{"path":1}`, 400, "bad request body: json: cannot unmarshal number"},
		} {
			resp, text := do(c.method, c.body)
			if resp.StatusCode != c.status || !strings.HasPrefix(text, c.text) {
				t.Errorf("strict %v, %s: %d %q, want %d %q", strict, c.name, resp.StatusCode, text, c.status, c.text)
			}
			if allow := resp.Header.Get("Allow"); (c.status == 405) != (allow == "POST") {
				t.Errorf("strict %v, %s: Allow %q", strict, c.name, allow)
			}
			if c.status == 200 && resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("strict %v, %s: Content-Type %q", strict, c.name, resp.Header.Get("Content-Type"))
			}
		}
		// A field the body type does not have: refused only when strict.
		resp, text := do("POST", `{"path":"/a","extra":1}`)
		if strict && (resp.StatusCode != 400 || !strings.Contains(text, `unknown field "extra"`)) ||
			!strict && (resp.StatusCode != 200 || text != `{"path":"/a"}`) {
			t.Errorf("strict %v, an unknown field: %d %q", strict, resp.StatusCode, text)
		}
		srv.Close()
	}
}

// A client that sends its headers and stalls its body is answered 408 once BodyTimeout passes,
// and its connection is closed: it no longer holds one of the bridge's connections for good.
func TestDecodePostStalledBody(t *testing.T) {
	testbin.Set(t, &transport.BodyTimeout, 200*time.Millisecond)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v any
		if transport.DecodePost(w, r, 64<<10, false, &v) {
			transport.ReplyJSON(w, v)
		}
	}))
	defer srv.Close()
	b := testbin.StalledPost(t, srv.Listener.Addr().String(), "/v1/hook")
	if !strings.HasPrefix(b, "HTTP/1.1 408") || !strings.Contains(b, "request body not sent within 200ms") {
		t.Fatalf("answer to a stalled body: %q", b)
	}
}

// The deadline is the body's alone: a handler that waits after reading it (the permission
// hook waits for the user) keeps its request, and its context is not cancelled when
// BodyTimeout passes (net/http's background read would hit the deadline and cancel it).
func TestDecodePostWaitOutlivesBodyTimeout(t *testing.T) {
	testbin.Set(t, &transport.BodyTimeout, 100*time.Millisecond)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v any
		if !transport.DecodePost(w, r, 64<<10, false, &v) {
			return
		}
		select {
		case <-r.Context().Done():
			transport.ReplyJSON(w, "cancelled")
		case <-time.After(5 * transport.BodyTimeout):
			transport.ReplyJSON(w, "held")
		}
	}))
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); strings.TrimSpace(string(b)) != `"held"` {
		t.Fatalf("a handler waiting past BodyTimeout after the body: %s", b)
	}
}
