package nvimtest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The Gemini CLI's side of the companion (internal/companion, docs/gemini.md) against real
// Neovim: the SDK's streamable client with the token of the bridge's discovery file, the
// notifications read off its SSE streams.

type geminiNotes chan map[string]any

// agentTap adds the token and reads ide/* notifications off SSE responses.
type agentTap struct {
	token string
	notes geminiNotes
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

// geminiSession connects to the Gemini companion of the bridge Neovim runs.
func geminiSession(t *testing.T, e *env) (*mcp.ClientSession, geminiNotes) {
	t.Helper()
	var pid int
	e.n.luaInto(t, &pid, `return vim.fn.getpid()`)
	var file string
	waitFor(t, "the Gemini discovery file", func() bool {
		m, _ := filepath.Glob(filepath.Join(os.TempDir(), "gemini", "ide", "gemini-ide-server-"+itoa(pid)+"-*.json"))
		if len(m) == 1 {
			file = m[0]
		}
		return file != ""
	})
	var d struct {
		Port      int    `json:"port"`
		AuthToken string `json:"authToken"`
	}
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	notes := make(geminiNotes, 64)
	tr := &mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1:" + itoa(d.Port) + "/mcp",
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

func (n geminiNotes) next(t *testing.T, method string) map[string]any {
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

func agentCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A Gemini proposal is a diff in Neovim like Claude's: :w accepts it and the CLI is sent the
// buffer's text, the user's edits kept; answered in Gemini's terminal first (closeDiff), the CLI
// gets the proposal buffer's text as it is then.
func TestGeminiDiffInNeovim(t *testing.T) {
	e := newEnv(t, nil, false)
	path := e.file(t, "a.txt", "old\n")
	cs, notes := geminiSession(t, e)
	tab := "[Gemini] " + path

	agentCall(t, cs, "openDiff", map[string]any{"filePath": path, "newContent": "new\n"})
	e.waitDiffs(t, tab+"=pending")
	// Issue 38 item 4: the view says whose proposal it is (Claude's says Claude: layout_test).
	if sl := e.n.str(t, `return vim.api.nvim_eval_statusline(vim.wo.statusline, { winid = 0, maxwidth = 120 }).str`); !strings.Contains(sl, "a.txt (Gemini's proposal)") {
		t.Errorf("the proposal's status line %q does not name Gemini", sl)
	}
	if tl := e.n.str(t, `return require("claude-ide-bridge.tabline").label(0)`); tl != "Diff a.txt (Gemini)" {
		t.Errorf("the diff's tab label %q, want Diff a.txt (Gemini)", tl)
	}
	e.n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, -1, false, {"new", "edited before :w"})`)
	e.n.ex(t, "write")
	if got := notes.next(t, "ide/diffAccepted"); got["filePath"] != path || got["content"] != "new\nedited before :w\n" {
		t.Fatalf("ide/diffAccepted %v", got)
	}
	e.waitDiffs(t)
	if got := harness.FileText(path); got != "old\n" {
		t.Fatalf("Neovim or the bridge wrote the file: %q", got)
	}

	agentCall(t, cs, "openDiff", map[string]any{"filePath": path, "newContent": "second\n"})
	e.waitDiffs(t, tab+"=pending")
	e.n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, -1, false, {"second", "edited, answered in Gemini"})`)
	r := agentCall(t, cs, "closeDiff", map[string]any{"filePath": path, "suppressNotification": true})
	if txt := r.Content[0].(*mcp.TextContent).Text; txt != `{"content":"second\nedited, answered in Gemini\n"}` {
		t.Fatalf("closeDiff %s", txt)
	}
	e.waitDiffs(t)
}
