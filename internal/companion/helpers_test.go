package companion

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/exclude"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testEditor is an editor that shows diffs by handing them to the test, and lists open files.
type testEditor struct {
	shown  chan ide.ShowDiffParams
	closed chan string

	mu    sync.Mutex
	files []ide.OpenEditor
	view  map[string]string // tab → the diff view's text now (diffText)
}

func (e *testEditor) DiffText(ctx context.Context, tab string) (string, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t, ok := e.view[tab]
	return t, ok, nil
}

func (e *testEditor) edit(tab, text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.view == nil {
		e.view = map[string]string{}
	}
	e.view[tab] = text
}

func newTestEditor() *testEditor {
	return &testEditor{shown: make(chan ide.ShowDiffParams, 16), closed: make(chan string, 16)}
}

func (e *testEditor) OpenFile(context.Context, ide.OpenFileParams) (ide.OpenFileResult, error) {
	return ide.OpenFileResult{}, nil
}
func (e *testEditor) ShowDiff(ctx context.Context, p ide.ShowDiffParams) error {
	e.shown <- p
	return nil
}
func (e *testEditor) CloseDiff(ctx context.Context, tab string) error {
	e.closed <- tab
	return nil
}
func (e *testEditor) SetBufferText(context.Context, string, string) error { return nil }
func (e *testEditor) OpenEditors(context.Context) ([]ide.OpenEditor, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]ide.OpenEditor(nil), e.files...), nil
}
func (e *testEditor) setFiles(f ...ide.OpenEditor) {
	e.mu.Lock()
	e.files = f
	e.mu.Unlock()
}
func (e *testEditor) CurrentSelection(context.Context) (*ide.Selection, error) { return nil, nil }
func (e *testEditor) CheckDirty(context.Context, string) (ide.DocState, error) {
	return ide.DocState{}, nil
}
func (e *testEditor) Save(context.Context, string) (ide.DocState, error) { return ide.DocState{}, nil }
func (e *testEditor) Diagnostics(context.Context, string) ([]ide.FileDiagnostics, error) {
	return nil, nil
}
func (e *testEditor) ExecuteCode(context.Context, string) ([]ide.Content, error) { return nil, nil }

// fixture is a model with a test editor over a real workspace, and one companion for it.
type fixture struct {
	dir    string // the workspace
	editor *testEditor
	model  *ide.Model
	srv    *Server
	disc   string     // the discovery folder
	events ide.Events // the model's; set a field before connect
}

func newFixture(t *testing.T, agent Agent) *fixture {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ex, err := exclude.New([]string{"**/.env"})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{dir: ws, editor: newTestEditor(), disc: filepath.Join(t.TempDir(), "gemini", "ide")}
	f.model = ide.New(f.editor, ide.EditorInfo{Name: "Test Editor", Caps: ide.Capabilities{ShowDiff: true, OpenEditors: true, CanCloseTabs: true, DiffText: true},
		TrackSelection: true, Exclude: ex}, []string{ws}, ide.Events{
		ClientConnected: func(id ide.ClientID, a string, now ide.Agents) {
			if c := f.events.ClientConnected; c != nil {
				c(id, a, now)
			}
		},
		ClientDisconnected: func(id ide.ClientID, a string, now ide.Agents) {
			if c := f.events.ClientDisconnected; c != nil {
				c(id, a, now)
			}
		},
	}, nil)
	f.srv, err = Start(Config{Agent: agent, Model: f.model, Dir: f.disc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.srv.Close()
		f.model.Close()
	})
	return f
}

func (f *fixture) write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// tap adds the token to every request of the SDK's client and reads the ide/* notifications
// off the SSE streams it receives (the SDK's client drops methods it does not know).
type tap struct {
	token string
	n     *notes
}

func (b tap) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &sseTap{ReadCloser: resp.Body, n: b.n}
	}
	return resp, err
}

type notes struct{ ch chan *jsonrpc.Request }

// sseTap passes an SSE body through and hands each ide/* notification in it to notes.
type sseTap struct {
	io.ReadCloser
	n   *notes
	buf []byte
}

func (s *sseTap) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	s.buf = append(s.buf, p[:n]...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			break
		}
		line := s.buf[:i]
		s.buf = s.buf[i+1:]
		data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:"))
		if !ok {
			continue
		}
		m, derr := jsonrpc.DecodeMessage(bytes.TrimSpace(data))
		if r, isReq := m.(*jsonrpc.Request); derr == nil && isReq && strings.HasPrefix(r.Method, "ide/") {
			r.Params = bytes.Clone(r.Params) // it may point into buf
			s.n.ch <- r
		}
	}
	return n, err
}

// connect opens a session with the SDK's own streamable client, as the CLIs do.
func (f *fixture) connect(t *testing.T) (*mcp.ClientSession, *notes) {
	t.Helper()
	n := &notes{ch: make(chan *jsonrpc.Request, 64)}
	tr := &mcp.StreamableClientTransport{Endpoint: f.srv.URL(), HTTPClient: &http.Client{Transport: tap{f.srv.Token(), n}}}
	// The protocol versions the CLIs speak (facts §2): both open the GET stream.
	version := "2025-06-18"
	if f.srv.Agent() == Qwen {
		version = "2025-11-25"
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "streamable-http-client", Version: "test"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, n
}

// next waits for the next notification named method, skipping others.
func (n *notes) next(t *testing.T, method string) map[string]any {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case r := <-n.ch:
			if r.Method != method {
				continue
			}
			var p map[string]any
			if err := json.Unmarshal(r.Params, &p); err != nil {
				t.Fatal(err)
			}
			return p
		case <-timeout:
			t.Fatalf("no %s", method)
			return nil
		}
	}
}

// propose calls openDiff of path with text as the agent cs, and returns the diff the editor is
// shown.
func (f *fixture) propose(t *testing.T, cs *mcp.ClientSession, path, text string) ide.ShowDiffParams {
	t.Helper()
	callTool(t, cs, "openDiff", map[string]any{"filePath": path, "newContent": text})
	return f.shown(t)
}

func (f *fixture) shown(t *testing.T) ide.ShowDiffParams {
	t.Helper()
	select {
	case p := <-f.editor.shown:
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("no diff shown")
		return ide.ShowDiffParams{}
	}
}

// closedTab waits for the editor to be told to close a diff and returns its tab name.
func (f *fixture) closedTab(t *testing.T) string {
	t.Helper()
	select {
	case tab := <-f.editor.closed:
		return tab
	case <-time.After(10 * time.Second):
		t.Fatal("no diff closed")
		return ""
	}
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}
