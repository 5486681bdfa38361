package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The Gemini CLI's side of the companion (internal/companion, docs/gemini.md), for the editor
// suites: the SDK's streamable client with the token of the bridge's discovery file, the
// notifications read off its SSE streams.

// GeminiNotes carries the ide/* notifications a GeminiSession receives.
type GeminiNotes chan map[string]any

// agentTap adds the token and reads ide/* notifications off SSE responses.
type agentTap struct {
	token string
	notes GeminiNotes
}

func (a agentTap) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		pr, pw := io.Pipe()
		body := resp.Body
		go func() {
			defer pw.Close()
			sc := bufio.NewScanner(body)
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				line := sc.Text()
				pw.Write([]byte(line + "\n"))
				if data, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(data, `"method":"ide/`) {
					var m map[string]any
					if json.Unmarshal([]byte(data), &m) == nil {
						a.notes <- m
					}
				}
			}
		}()
		resp.Body = readCloser{pr, body}
	}
	return resp, err
}

// readCloser reads the tapped stream and closes the response body under it.
type readCloser struct {
	io.Reader
	body io.Closer
}

func (r readCloser) Close() error { return r.body.Close() }

// GeminiSession connects as the Gemini CLI to the companion of the bridge run by the editor
// whose pid is editorPid (its discovery file names that pid), the bridge's $TMPDIR being tmp.
func GeminiSession(t *testing.T, tmp string, editorPid int) (*mcp.ClientSession, GeminiNotes) {
	t.Helper()
	var file string
	if !Poll(15*time.Second, func() bool {
		m, _ := filepath.Glob(filepath.Join(tmp, "gemini", "ide", "gemini-ide-server-"+strconv.Itoa(editorPid)+"-*.json"))
		if len(m) == 1 {
			file = m[0]
		}
		return file != ""
	}) {
		t.Fatalf("no Gemini discovery file for pid %d", editorPid)
	}
	var d struct {
		Port      int    `json:"port"`
		AuthToken string `json:"authToken"`
	}
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	notes := make(GeminiNotes, 64)
	tr := &mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1:" + strconv.Itoa(d.Port) + "/mcp",
		HTTPClient: &http.Client{Transport: agentTap{d.AuthToken, notes}}}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "streamable-http-client", Version: "0.61.0"}, nil).
		Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, notes
}

// Next returns the params of the next notification named method.
func (n GeminiNotes) Next(t *testing.T, method string) map[string]any {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case m := <-n:
			if m["method"] == method {
				p, _ := m["params"].(map[string]any)
				return p
			}
		case <-timeout:
			t.Fatalf("no %s", method)
		}
	}
}

// AgentCall calls the companion's tool name.
func AgentCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Prompt types text into an agent CLI's terminal (send writes to it) and presses Enter until the
// model is asked (requests counts the fake API's requests). The CLIs' TUIs take a burst of keys
// ending in Enter as a paste, so under load the first Enter may not send the prompt.
func Prompt(t testing.TB, send func(keys string), text string, requests func() int) {
	t.Helper()
	before := requests()
	send(text)
	time.Sleep(300 * time.Millisecond) // not an assertion: see above
	for i := 0; requests() == before; i++ {
		if i == 20 {
			t.Fatalf("%q never reached the model", text)
		}
		send("\r")
		Poll(3*time.Second, func() bool { return requests() > before })
	}
}
