package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// testEditor is an in-process ide.Editor that records what the bridge asked it to do.
type testEditor struct {
	mu     sync.Mutex
	shown  chan ide.ShowDiffParams
	closed chan string
	opened chan ide.OpenFileParams
	buffer map[string]string // SetBufferText calls, by path
}

func newTestEditor() *testEditor {
	return &testEditor{
		shown: make(chan ide.ShowDiffParams, 64), closed: make(chan string, 64),
		opened: make(chan ide.OpenFileParams, 64), buffer: map[string]string{},
	}
}

// panicPath makes CheckDirty panic, to see the bridge survive a broken editor.
const panicPath = "/panic/here.go"

func (e *testEditor) OpenFile(ctx context.Context, p ide.OpenFileParams) (ide.OpenFileResult, error) {
	e.opened <- p
	return ide.OpenFileResult{LanguageID: "go", LineCount: 3}, nil
}
func (e *testEditor) ShowDiff(ctx context.Context, p ide.ShowDiffParams) error {
	e.shown <- p
	return nil
}
func (e *testEditor) CloseDiff(ctx context.Context, tab string) error { e.closed <- tab; return nil }
func (e *testEditor) SetBufferText(ctx context.Context, path, text string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.buffer[path] = text
	return nil
}
func (e *testEditor) OpenEditors(ctx context.Context) ([]ide.OpenEditor, error) {
	return []ide.OpenEditor{{FilePath: "/w/a.go", IsActive: true}}, nil
}
func (e *testEditor) CurrentSelection(ctx context.Context) (*ide.Selection, error) { return nil, nil }
func (e *testEditor) CheckDirty(ctx context.Context, path string) (ide.DocState, error) {
	if path == panicPath {
		panic("test editor: CheckDirty broke")
	}
	return ide.DocState{IsOpen: path == "/w/a.go", IsDirty: true}, nil
}
func (e *testEditor) Save(ctx context.Context, path string) (ide.DocState, error) {
	return ide.DocState{IsOpen: path == "/w/a.go", Saved: true}, nil
}

// Diagnostics reports one error in the file asked for, or in /w/a.go for all files.
func (e *testEditor) Diagnostics(ctx context.Context, path string) ([]ide.FileDiagnostics, error) {
	if path == "" {
		path = "/w/a.go"
	}
	d := ide.Diagnostic{Message: "x", Severity: "Error", Source: "test",
		Range: ide.Range{Start: ide.Position{Line: 1, Character: 2}, End: ide.Position{Line: 1, Character: 4}}}
	return []ide.FileDiagnostics{{FilePath: path, Diagnostics: []ide.Diagnostic{d}}}, nil
}
func (e *testEditor) ExecuteCode(ctx context.Context, code string) ([]ide.Content, error) {
	return []ide.Content{{Type: "text", Text: "ran " + code}}, nil
}

var allCaps = ide.Capabilities{OpenFile: true, ShowDiff: true, CanCloseTabs: true, OpenEditors: true,
	CheckDirty: true, Save: true, Diagnostics: true, ExecuteCode: true, SetBufferText: true}

// start runs a bridge with a test editor and a private lock dir.
func start(t *testing.T) (*bridge.Bridge, *testEditor) {
	return startWith(t, nil)
}

// startWith is start with a chance to change the config first.
func startWith(t *testing.T, change func(*bridge.Config)) (*bridge.Bridge, *testEditor) {
	t.Helper()
	ed := newTestEditor()
	cfg := bridge.Config{
		Editor: ed, Info: ide.EditorInfo{Name: "Test", Caps: allCaps, TrackSelection: true},
		Folders: []string{t.TempDir()}, LockDir: t.TempDir(),
	}
	if change != nil {
		change(&cfg)
	}
	b, err := bridge.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, ed
}

// connect dials b as Claude and completes the handshake. It returns once the bridge counts the
// client, so that notifications sent after it reach it.
func connect(t *testing.T, b *bridge.Bridge) *probe.Client {
	t.Helper()
	ctx := testbin.Ctx(t)
	before := b.Model.Listeners()
	c, _, err := probe.Dial(ctx, b.Port(), b.Token(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Handshake(ctx); err != nil {
		t.Fatal(err)
	}
	// Notifications start a moment after the handshake (mcp.Serve); wait for that.
	for b.Model.Listeners() <= before {
		select {
		case <-ctx.Done():
			t.Fatal("the bridge never counted the client")
		case <-time.After(time.Millisecond):
		}
	}
	return c
}

// tool calls a tool and fails the test on a protocol error.
var tool = testbin.Tool

// rpcCode returns the JSON-RPC error code of err, or 0.
func rpcCode(err error) int {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// textJSON decodes the JSON text of a tool result's only block.
func textJSON(t *testing.T, r *probe.ToolResult) any {
	t.Helper()
	if len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Fatalf("want one text block, got %+v", r.Content)
	}
	var v any
	if err := json.Unmarshal([]byte(r.Content[0].Text), &v); err != nil {
		t.Fatalf("text is not JSON: %q", r.Content[0].Text)
	}
	return v
}

// keys returns an object's keys, sorted and comma-joined ("" for a non-object).
func keys(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return "<not an object>"
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

// accept and reject are the user's decisions on the proposal the editor was shown, by its
// number, as every editor sends them (ide.Model.Decide).
func accept(b *bridge.Bridge, p ide.ShowDiffParams, text string) error {
	return b.Model.Decide(p.Seq, ide.Decision{Accept: true, Text: ide.TextOf(text)})
}

func reject(b *bridge.Bridge, p ide.ShowDiffParams) error {
	return b.Model.Decide(p.Seq, ide.Decision{})
}
