package probe_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/editors/terminal"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// run probes target with every check (open-diff included) and returns status by name.
func run(t *testing.T, target probe.Target) map[string]probe.Result {
	t.Helper()
	rs, err := probe.Run(testbin.Ctx(t), target, probe.Options{Diff: true, DiffDir: t.TempDir(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	probe.WriteTable(&table, rs)
	t.Logf("\n%s", table.String())
	out := map[string]probe.Result{}
	for _, r := range rs {
		out[r.Name] = r
	}
	if len(out) != len(probe.Checks) {
		t.Fatalf("%d results, want one per check (%d)", len(out), len(probe.Checks))
	}
	return out
}

// autoEditor accepts every diff as proposed, like serve --auto accept, and serves every tool.
type autoEditor struct {
	ide.Editor // nil: the methods below are all a bridge calls here
	model      *ide.Model
	mu         sync.Mutex
}

func (e *autoEditor) ShowDiff(ctx context.Context, p ide.ShowDiffParams) error {
	e.mu.Lock()
	m := e.model
	e.mu.Unlock()
	return m.Decide(p.Seq, ide.Decision{Accept: true})
}
func (e *autoEditor) CloseDiff(context.Context, string) error { return nil }
func (e *autoEditor) OpenEditors(context.Context) ([]ide.OpenEditor, error) {
	return []ide.OpenEditor{{FilePath: "/w/a.go", IsActive: true}}, nil
}

func TestProbePassesAgainstTheBridge(t *testing.T) {
	ed := &autoEditor{}
	b, err := bridge.Start(bridge.Config{
		Editor: ed, Info: ide.EditorInfo{Name: "Auto", TrackSelection: true,
			Caps: ide.Capabilities{ShowDiff: true, CanCloseTabs: true, OpenEditors: true}},
		Folders: []string{t.TempDir()}, LockDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ed.mu.Lock()
	ed.model = b.Model
	ed.mu.Unlock()
	b.Model.SelectionChanged(ide.Selection{Text: "x", FilePath: "/w/a.go"})

	target, err := probe.FromLock(b.LockPath())
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range run(t, target) {
		if r.Status != probe.Pass {
			t.Errorf("%s: %s %s", name, r.Status, r.Detail)
		}
	}
}

// The real pieces of "serve --auto accept": the terminal editor answering by itself.
func TestProbePassesAgainstServeAutoAccept(t *testing.T) {
	ed := terminal.New(strings.NewReader(""), io.Discard, terminal.Accept, false)
	defer ed.Close()
	b, err := bridge.Start(bridge.Config{Editor: ed, Info: terminal.Info("Terminal"), Folders: []string{t.TempDir()}, LockDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ed.Bind(b.Model)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); ed.Run(ctx) }()
	defer func() { cancel(); <-done }()

	target, _ := probe.FromLock(b.LockPath())
	for name, r := range run(t, target) {
		// The terminal does not list getOpenEditors: skipped, not failed.
		if want := map[bool]probe.Status{true: probe.Skip, false: probe.Pass}[name == "getOpenEditors"]; r.Status != want {
			t.Errorf("%s: %s %s, want %s", name, r.Status, r.Detail, want)
		}
	}
}

// fakeIDE is a small IDE server written against the spec with one fault switched on, to see
// the probe blame exactly that.
type fakeIDE struct {
	token        string
	noSubproto   bool   // does not answer Sec-WebSocket-Protocol: mcp
	closeTabText string // close_tab's answer ("" = TAB_CLOSED)
	writesFile   bool   // openDiff writes the file itself
	badSchema    bool   // openDiff's inputSchema is not of type object
	badFolder    bool   // getWorkspaceFolders answers a folder without its path
}

func (f *fakeIDE) start(t *testing.T) probe.Target {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	n, _ := strconv.Atoi(port)
	return probe.Target{Port: n, Token: f.token}
}

func (f *fakeIDE) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Origin") != "" {
		http.Error(w, "no browsers", http.StatusForbidden)
		return
	}
	if r.Header.Get("X-Claude-Code-Ide-Authorization") != f.token {
		http.Error(w, "bad token", http.StatusUnauthorized)
		return
	}
	opts := &websocket.AcceptOptions{Subprotocols: []string{"mcp"}}
	if f.noSubproto {
		opts.Subprotocols = nil
	}
	ws, err := websocket.Accept(w, r, opts)
	if err != nil {
		return
	}
	defer ws.CloseNow()
	conn := jsonrpc.NewConn(probe.NewStream(ws), f.handle)
	conn.Run(r.Context())
}

func (f *fakeIDE) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	text := func(s ...string) any {
		var c []map[string]string
		for _, t := range s {
			c = append(c, map[string]string{"type": "text", "text": t})
		}
		return map[string]any{"content": c}
	}
	obj := `{"type":"object","properties":{}}`
	switch req.Method {
	case "initialize":
		return map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "fake", "version": "1"}}, nil
	case "tools/list":
		var tools []map[string]any
		for _, n := range []string{"openDiff", "close_tab", "closeAllDiffTabs", "getWorkspaceFolders", "getLatestSelection", "getCurrentSelection"} {
			schema := json.RawMessage(obj)
			if f.badSchema && n == "openDiff" {
				schema = json.RawMessage(`{"type":"string"}`)
			}
			tools = append(tools, map[string]any{"name": n, "inputSchema": schema})
		}
		return map[string]any{"tools": tools}, nil
	case "tools/call":
		var p struct {
			Name      string `json:"name"`
			Arguments struct {
				Path     string `json:"old_file_path"`
				Contents string `json:"new_file_contents"`
			} `json:"arguments"`
		}
		json.Unmarshal(req.Params, &p)
		switch p.Name {
		case "getWorkspaceFolders":
			if f.badFolder {
				return text(`{"success":true,"folders":[{"name":"w","uri":"file:///w"}],"rootPath":"/w"}`), nil
			}
			return text(`{"success":true,"folders":[{"name":"w","uri":"file:///w","path":"/w"}],"rootPath":"/w"}`), nil
		case "getLatestSelection", "getCurrentSelection":
			return text(`{"success":false,"message":"No selection available"}`), nil
		case "close_tab":
			if f.closeTabText != "" {
				return text(f.closeTabText), nil
			}
			return text("TAB_CLOSED"), nil
		case "closeAllDiffTabs":
			return text("CLOSED_0_DIFF_TABS"), nil
		case "openDiff":
			if f.writesFile {
				os.WriteFile(p.Arguments.Path, []byte(p.Arguments.Contents), 0o600)
			}
			return text("FILE_SAVED", p.Arguments.Contents), nil
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown tool %s", p.Name)
	}
	if !req.IsCall() {
		return nil, nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "no %s", req.Method)
}

// A server that breaks one rule fails exactly the check for that rule.
func TestProbeBlamesExactlyTheBrokenRule(t *testing.T) {
	tests := []struct {
		name   string
		fake   fakeIDE
		failed string // comma-joined failing checks
	}{
		{"follows the spec", fakeIDE{}, ""},
		{"no subprotocol echo", fakeIDE{noSubproto: true}, "subprotocol"},
		{"close_tab answers something else", fakeIDE{closeTabText: "OK"}, "close-tab-unknown"},
		{"writes the file on accept", fakeIDE{writesFile: true}, "open-diff"},
		{"a schema that is not an object", fakeIDE{badSchema: true}, "tools-list"},
		{"a workspace folder without its path", fakeIDE{badFolder: true}, "getWorkspaceFolders"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fake.token = "a3f1c2d4e5f60718293a4b5c6d7e8f90"
			var failed []string
			results := run(t, tt.fake.start(t))
			for _, name := range probe.Checks {
				r := results[name]
				switch {
				case r.Status == probe.Fail:
					failed = append(failed, name)
				case name == "getOpenEditors" && r.Status != probe.Skip:
					t.Errorf("getOpenEditors is not listed: want skip, got %s", r.Status)
				}
			}
			if got := strings.Join(failed, ","); got != tt.failed {
				t.Errorf("failed %q, want %q", got, tt.failed)
			}
		})
	}
}

// Issue 25 item 7: a check's detail quotes the server (its name and version, its errors):
// WriteTable escapes it, so a server cannot write escape sequences to the terminal.
func TestWriteTableEscapes(t *testing.T) {
	var b strings.Builder
	probe.WriteTable(&b, []probe.Result{{Name: "initialize", Status: probe.Pass, Detail: "2025-11-25, server evil\x1b[2J\x1b]52;c;cHduZWQ=\x07 1.0\nsecond line"}})
	if strings.ContainsAny(b.String(), "\x1b\x07") || !strings.Contains(b.String(), `server evil\x1b[2J\x1b]52;c;cHduZWQ=\x07 1.0\nsecond line`) {
		t.Fatalf("table %q", b.String())
	}
}
