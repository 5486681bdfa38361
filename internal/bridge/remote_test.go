package bridge_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/remote"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// shellFile writes a five-line file into b's workspace and returns its path and b as a target.
func shellFile(t *testing.T, b *bridge.Bridge, lockDir string) (string, remote.Bridge) {
	t.Helper()
	path := filepath.Join(b.Model.Folders()[0], "a.go")
	if err := os.WriteFile(path, []byte("one\ntwo\nthree é\nfour\nfive\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	target, err := remote.Find([]string{lockDir}, path)
	if err != nil {
		t.Fatal(err)
	}
	if target.Port != b.Port() {
		t.Fatalf("found port %d, want %d", target.Port, b.Port())
	}
	return path, target
}

func startLocked(t *testing.T) (*bridge.Bridge, string) {
	lockDir := t.TempDir()
	b, _ := startWith(t, func(c *bridge.Config) { c.LockDir = lockDir })
	return b, lockDir
}

// Spec 000 "At-Mentions": at_mentioned {filePath, lineStart, lineEnd}, "lineStart and lineEnd
// are 0-based, and lineEnd is the last selected line"; `mention a.go:2-4` names lines as editors
// show them (1-based).
func TestShellMentionReachesClaude(t *testing.T) {
	t.Parallel()
	b, lockDir := startLocked(t)
	path, target := shellFile(t, b, lockDir)
	c := connect(t, b)
	reply, err := remote.Send(testbin.Ctx(t), target, remote.PathMention, remote.Request{FilePath: path, Lines: []int{2, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Sessions != 1 || reply.Held {
		t.Fatalf("reply %+v, want 1 session", reply)
	}
	m, err := c.Next(testbin.Ctx(t), "at_mentioned")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"filePath":"` + path + `","lineStart":1,"lineEnd":3}`
	if string(m.Params) != want {
		t.Fatalf("at_mentioned %s, want %s", m.Params, want)
	}
	// A whole file: no lines.
	if _, err := remote.Send(testbin.Ctx(t), target, remote.PathMention, remote.Request{FilePath: path}); err != nil {
		t.Fatal(err)
	}
	if m, err = c.Next(testbin.Ctx(t), "at_mentioned"); err != nil || string(m.Params) != `{"filePath":"`+path+`"}` {
		t.Fatalf("whole-file at_mentioned %s, %v", m.Params, err)
	}
}

// Spec 000: with no client connected the mention is held (30 s) for the first one.
func TestShellMentionHeldUntilClaudeConnects(t *testing.T) {
	t.Parallel()
	b, lockDir := startLocked(t)
	path, target := shellFile(t, b, lockDir)
	reply, err := remote.Send(testbin.Ctx(t), target, remote.PathMention, remote.Request{FilePath: path, Lines: []int{5, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if !reply.Held || reply.Sessions != 0 {
		t.Fatalf("reply %+v, want held", reply)
	}
	c := connect(t, b)
	m, err := c.Next(testbin.Ctx(t), "at_mentioned")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m.Params), `"lineStart":4,"lineEnd":4`) {
		t.Fatalf("held at_mentioned %s", m.Params)
	}
}

// select makes whole lines the selection (text read from the file), as a linewise Visual
// selection: from the first line's start to the last line's end, characters in UTF-16 units.
func TestShellSelectSetsSelection(t *testing.T) {
	t.Parallel()
	b, lockDir := startLocked(t)
	path, target := shellFile(t, b, lockDir)
	c := connect(t, b)
	reply, err := remote.Send(testbin.Ctx(t), target, remote.PathSelect, remote.Request{FilePath: path, Lines: []int{2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Sessions != 1 {
		t.Fatalf("reply %+v", reply)
	}
	m, err := c.Next(testbin.Ctx(t), "selection_changed")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Text      string `json:"text"`
		FilePath  string `json:"filePath"`
		Selection struct {
			Start, End struct{ Line, Character int }
			IsEmpty    bool `json:"isEmpty"`
		} `json:"selection"`
	}
	json.Unmarshal(m.Params, &got)
	if got.Text != "two\nthree é" || got.FilePath != path || got.Selection.Start.Line != 1 || got.Selection.Start.Character != 0 ||
		got.Selection.End.Line != 2 || got.Selection.End.Character != 7 || got.Selection.IsEmpty {
		t.Fatalf("selection_changed %s", m.Params)
	}
	// And getLatestSelection answers it.
	if r := tool(t, c, "getLatestSelection", nil); !strings.Contains(r.Texts()[0], `two\nthree é`) {
		t.Fatalf("getLatestSelection %s", r.Texts())
	}
	// No lines: the cursor at the file's start, an empty selection in that file.
	if _, err := remote.Send(testbin.Ctx(t), target, remote.PathSelect, remote.Request{FilePath: path}); err != nil {
		t.Fatal(err)
	}
	if m, err = c.Next(testbin.Ctx(t), "selection_changed"); err != nil || !strings.Contains(string(m.Params), `"text":""`) || !strings.Contains(string(m.Params), `"isEmpty":true`) {
		t.Fatalf("cursor selection %s %v", m.Params, err)
	}
}

// Bad requests get a clear reason and change nothing.
func TestShellBadRequestsRefused(t *testing.T) {
	t.Parallel()
	b, lockDir := startLocked(t)
	path, target := shellFile(t, b, lockDir)
	outside := filepath.Join(t.TempDir(), "x.go")
	os.WriteFile(outside, []byte("x\n"), 0o644)
	big := filepath.Join(b.Model.Folders()[0], "big.txt")
	os.WriteFile(big, append(bytes.Repeat([]byte("x"), remote.MaxSelection+1), '\n'), 0o644)
	for _, tc := range []struct {
		name, endpoint string
		req            remote.Request
		want           string
	}{
		{"past the end", remote.PathSelect, remote.Request{FilePath: path, Lines: []int{4, 9}}, "has 5 lines: there is no line 9"},
		{"mention past the end", remote.PathMention, remote.Request{FilePath: path, Lines: []int{6, 6}}, "has 5 lines"},
		{"zero line", remote.PathMention, remote.Request{FilePath: path, Lines: []int{0, 1}}, "1 <= start <= end"},
		{"outside the workspace", remote.PathMention, remote.Request{FilePath: outside}, "not in this IDE's workspace"},
		{"relative", remote.PathMention, remote.Request{FilePath: "a.go"}, "must be absolute"},
		{"missing", remote.PathSelect, remote.Request{FilePath: path + ".gone"}, "no such file"},
		{"a directory", remote.PathSelect, remote.Request{FilePath: filepath.Dir(path)}, "not a regular file"},
		{"too big", remote.PathSelect, remote.Request{FilePath: big, Lines: []int{1, 1}}, "over 1048576 bytes"},
	} {
		_, err := remote.Send(testbin.Ctx(t), target, tc.endpoint, tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
	if s := b.Model.LatestSelection(); s != nil {
		t.Fatalf("a refused select changed the selection: %+v", s)
	}
}

// The shell's endpoints are behind the WebSocket's own gate: token (constant time), no Origin,
// loopback Host. Each refusal is checked on the real listener.
func TestShellEndpointsNeedTheToken(t *testing.T) {
	t.Parallel()
	b, lockDir := startLocked(t)
	path, _ := shellFile(t, b, lockDir)
	body := `{"filePath":"` + path + `"}`
	for _, tc := range append(refusedShell(b),
		shellCase{"GET", func(r *http.Request) { r.Method = http.MethodGet }, 405},
		shellCase{"ok", func(*http.Request) {}, 200},
	) {
		if got, _ := postShell(t, b, remote.PathMention, body, tc.mod); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
}

// shellCase is a request to a shell endpoint changed by mod, and the status it must get.
type shellCase struct {
	name string
	mod  func(*http.Request)
	want int
}

// refusedShell are the requests every shell endpoint refuses: no token or a wrong one (401), a
// browser page's Origin or a rebound name's Host (403).
func refusedShell(b *bridge.Bridge) []shellCase {
	return []shellCase{
		{"no token", func(r *http.Request) { r.Header.Del(remote.AuthHeader) }, 401},
		{"wrong token", func(r *http.Request) { r.Header.Set(remote.AuthHeader, b.Token()[:len(b.Token())-1]+"x") }, 401},
		{"browser page", func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }, 403},
		{"rebinding name", func(r *http.Request) { r.Host = "evil.example:" + strconv.Itoa(b.Port()) }, 403},
	}
}

// postShell POSTs body to b's shell endpoint path with the lock's token, changed by mod, and
// returns the status and the answer.
func postShell(t *testing.T, b *bridge.Bridge, path, body string, mod func(*http.Request)) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(b.Port())+path, strings.NewReader(body))
	req.Header.Set(remote.AuthHeader, b.Token())
	mod(req)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(answer)
}
