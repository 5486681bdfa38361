package permission

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func post(t *testing.T, url string, body []byte) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The hook's request over a real loopback socket: a decision comes back as the CLI's answer;
// no editor gives an empty answer at once; a body over MaxBody is refused, never shown.
func TestHandler(t *testing.T) {
	e := newEditor()
	b := &Broker{}
	var seen []string
	srv := httptest.NewServer(Handler(b, func(in HookInput) { seen = append(seen, in.Tool) }))
	defer srv.Close()
	body, _ := json.Marshal(in())

	code, got := post(t, srv.URL, body)
	if code != 200 || strings.TrimSpace(got) != "{}" {
		t.Fatalf("no editor: %d %s", code, got)
	}
	b.Asker = func() Asker { return e }
	go func() {
		r := <-e.asked
		b.Decide(r.ID, Decision{Behavior: "deny", Message: "no\x1b"})
	}()
	code, got = post(t, srv.URL, body)
	var a Answer
	json.Unmarshal([]byte(got), &a)
	if code != 200 || !strings.Contains(string(a.Output), `"behavior":"deny"`) || !strings.Contains(string(a.Output), `"message":"no\u001b"`) {
		t.Fatalf("a decision: %d %s", code, got)
	}
	big := append(append([]byte(`{"hook_event_name":"PermissionRequest","session_id":"s","tool_name":"Bash","tool_input":{"command":"`), bytes.Repeat([]byte("x"), MaxBody)...), `"}}`...)
	if code, _ = post(t, srv.URL, big); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("a body over MaxBody: %d", code)
	}
	if len(seen) != 2 || len(e.asked) != 0 {
		t.Fatalf("seen %v, asked %d more", seen, len(e.asked))
	}
}
