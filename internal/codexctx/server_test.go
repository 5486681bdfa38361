//go:build unix

package codexctx

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"go.uber.org/goleak"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/attach"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tabsEditor is an editor whose only fact is its open tabs; the editor is not what is tested.
type tabsEditor struct{ tabs []ide.OpenEditor }

var errNo = errors.New("not in this test")

func (e tabsEditor) OpenEditors(context.Context) ([]ide.OpenEditor, error) {
	return append([]ide.OpenEditor{}, e.tabs...), nil
}
func (tabsEditor) OpenFile(context.Context, ide.OpenFileParams) (ide.OpenFileResult, error) {
	return ide.OpenFileResult{}, errNo
}
func (tabsEditor) ShowDiff(context.Context, ide.ShowDiffParams) error       { return errNo }
func (tabsEditor) CloseDiff(context.Context, string) error                  { return errNo }
func (tabsEditor) SetBufferText(context.Context, string, string) error      { return errNo }
func (tabsEditor) CurrentSelection(context.Context) (*ide.Selection, error) { return nil, errNo }
func (tabsEditor) CheckDirty(context.Context, string) (ide.DocState, error) {
	return ide.DocState{}, errNo
}
func (tabsEditor) Save(context.Context, string) (ide.DocState, error) { return ide.DocState{}, errNo }
func (tabsEditor) Diagnostics(context.Context, string) ([]ide.FileDiagnostics, error) {
	return nil, errNo
}
func (tabsEditor) ExecuteCode(context.Context, string) ([]ide.Content, error) { return nil, errNo }

// fixture is a workspace folder, a model over a tabsEditor and the server on a socket in a
// private temporary directory, closed at cleanup.
type fixture struct {
	folder string
	model  *ide.Model
	srv    *Server
}

func newFixture(t *testing.T, tabs ...string) *fixture {
	t.Helper()
	folder := t.TempDir()
	var eds []ide.OpenEditor
	for i, name := range tabs {
		eds = append(eds, ide.OpenEditor{FilePath: filepath.Join(folder, name), IsActive: i == 0})
	}
	m := ide.New(tabsEditor{eds}, ide.EditorInfo{Name: "test", Caps: ide.Capabilities{OpenEditors: true}, TrackSelection: true},
		[]string{folder}, ide.Events{}, nil)
	srv, err := Start(Config{Model: m, Path: filepath.Join(t.TempDir(), "codex-ipc", "ipc.sock")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &fixture{folder, m, srv}
}

// client is Codex's side of a connection.
type client struct {
	t testing.TB
	c net.Conn
}

func dial(t testing.TB, path string) *client {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return &client{t, c}
}

func (c *client) send(v any) {
	c.t.Helper()
	b, _ := json.Marshal(v)
	if err := writeFrame(c.c, b); err != nil {
		c.t.Fatal(err)
	}
}

// recv reads one frame the way Codex does (length, then JSON) into a generic map.
func (c *client) recv() (map[string]any, []byte) {
	c.t.Helper()
	b, err := readFrame(c.c, 256<<20)
	if err != nil {
		c.t.Fatalf("reading a response: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatalf("response is not JSON: %v: %q", err, b)
	}
	return m, b
}

func (c *client) ideContext(root string) (map[string]any, []byte) {
	c.t.Helper()
	c.send(map[string]any{"type": "request", "requestId": "r-ctx", "sourceClientId": "codex-tui", "version": 0,
		"method": "ide-context", "params": map[string]any{"workspaceRoot": root}})
	return c.recv()
}

func selection(path, text string, sl, sc, el, ec int) ide.Selection {
	return ide.Selection{Text: text, FilePath: path, Selection: ide.SelectionPos{
		Start: ide.Position{Line: sl, Character: sc}, End: ide.Position{Line: el, Character: ec}}}
}

// The frame: 4-byte little-endian length, then JSON; initialize gets result.clientId, with the
// request's id echoed, as the stored Codex ipc.rs expects before any ide-context.
func TestInitialize(t *testing.T) {
	f := newFixture(t)
	c := dial(t, f.srv.Path())
	body := []byte(`{"type":"request","method":"initialize","requestId":"abc-1","sourceClientId":"initializing-client","version":0,"params":{"clientType":"desktop"}}`)
	hdr := make([]byte, 4)
	binary.LittleEndian.PutUint32(hdr, uint32(len(body)))
	c.c.Write(hdr)
	c.c.Write(body) // in two writes: the server must read the body after its header
	m, raw := c.recv()
	res, _ := m["result"].(map[string]any)
	if m["type"] != "response" || m["requestId"] != "abc-1" || m["resultType"] != "success" || m["method"] != "initialize" {
		t.Fatalf("initialize answered %s", raw)
	}
	if id, _ := res["clientId"].(string); id == "" || m["handledByClientId"] != id {
		t.Fatalf("initialize without a clientId: %s", raw)
	}
}

// ide-context carries the active file (workspace-relative path, fsPath, 0-based selection, its
// text) and the open tabs, in the shape the Codex TUI reads.
func TestIDEContext(t *testing.T) {
	f := newFixture(t, "src/lib.go", "README.md")
	lib := filepath.Join(f.folder, "src", "lib.go")
	f.model.SelectionChanged(selection(lib, "func Add", 2, 0, 2, 8))
	c := dial(t, f.srv.Path())
	m, raw := c.ideContext(f.folder)
	if m["type"] != "response" || m["requestId"] != "r-ctx" || m["resultType"] != "success" || m["method"] != "ide-context" {
		t.Fatalf("ide-context answered %s", raw)
	}
	var r struct {
		Result struct {
			IDEContext struct {
				ActiveFile *struct {
					Label, Path, FSPath    string
					ActiveSelectionContent string
					Selection              struct{ Start, End struct{ Line, Character int } }
					Selections             []any
				}
				OpenTabs []struct{ Label, Path, FSPath string }
			}
		}
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	a := r.Result.IDEContext.ActiveFile
	if a == nil || a.Label != "lib.go" || a.Path != "src/lib.go" || a.FSPath != lib || a.ActiveSelectionContent != "func Add" ||
		a.Selection.Start.Line != 2 || a.Selection.End.Character != 8 || a.Selections == nil {
		t.Fatalf("activeFile wrong: %s", raw)
	}
	tabs := r.Result.IDEContext.OpenTabs
	if len(tabs) != 2 || tabs[0].Path != "src/lib.go" || tabs[1].Label != "README.md" || tabs[1].FSPath != filepath.Join(f.folder, "README.md") {
		t.Fatalf("openTabs wrong: %s", raw)
	}
	// A subfolder of the workspace is Codex's cwd as well as the folder itself.
	if m, raw := c.ideContext(filepath.Join(f.folder, "src")); m["resultType"] != "success" {
		t.Fatalf("ide-context from a subfolder: %s", raw)
	}
}

// In a workspace of two folders a file is named relative to the folder holding it; one outside
// both by its absolute path.
func TestPathsInTwoFolders(t *testing.T) {
	one, two, out := t.TempDir(), t.TempDir(), t.TempDir()
	m := ide.New(tabsEditor{[]ide.OpenEditor{{FilePath: filepath.Join(out, "x.txt")}}},
		ide.EditorInfo{Name: "test", Caps: ide.Capabilities{OpenEditors: true}}, []string{one, two}, ide.Events{}, nil)
	srv, err := Start(Config{Model: m, Path: filepath.Join(t.TempDir(), "codex-ipc", "ipc.sock")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	m.SelectionChanged(selection(filepath.Join(two, "pkg", "b.go"), "b", 0, 0, 0, 1))
	m2, raw := dial(t, srv.Path()).ideContext(one)
	ic := m2["result"].(map[string]any)["ideContext"].(map[string]any)
	if p := ic["activeFile"].(map[string]any)["path"]; p != "pkg/b.go" {
		t.Errorf("active file named %v, want pkg/b.go: %s", p, raw)
	}
	if p := ic["openTabs"].([]any)[0].(map[string]any)["path"]; p != filepath.Join(out, "x.txt") {
		t.Errorf("a file outside the workspace named %v: %s", p, raw)
	}
}

// An excluded file (.env by default) never appears: neither its selection nor its tab.
func TestExcludedFileAbsent(t *testing.T) {
	f := newFixture(t, ".env", "main.go")
	env := filepath.Join(f.folder, ".env")
	f.model.SelectionChanged(selection(env, "API_KEY=hunter2", 0, 0, 0, 15))
	_, raw := dial(t, f.srv.Path()).ideContext(f.folder)
	if strings.Contains(string(raw), ".env") || strings.Contains(string(raw), "hunter2") {
		t.Fatalf("the excluded file reached Codex: %s", raw)
	}
	if !strings.Contains(string(raw), "main.go") {
		t.Fatalf("the shared tab is missing: %s", raw)
	}
}

// While sharing is paused the answer carries no context at all.
func TestPausedSharesNothing(t *testing.T) {
	f := newFixture(t, "main.go")
	f.model.SelectionChanged(selection(filepath.Join(f.folder, "main.go"), "package main", 0, 0, 0, 12))
	f.model.SetPaused(true)
	m, raw := dial(t, f.srv.Path()).ideContext(f.folder)
	ic := m["result"].(map[string]any)["ideContext"].(map[string]any)
	if ic["activeFile"] != nil || len(ic["openTabs"].([]any)) != 0 {
		t.Fatalf("paused, yet shared: %s", raw)
	}
}

// The selection text is bounded (MaxSelection bytes, cut on a character boundary).
func TestSelectionBounded(t *testing.T) {
	f := newFixture(t, "big.txt")
	big := strings.Repeat("é", MaxSelection) // 2 bytes each
	f.model.SelectionChanged(selection(filepath.Join(f.folder, "big.txt"), big, 0, 0, 0, MaxSelection))
	m, _ := dial(t, f.srv.Path()).ideContext(f.folder)
	text := m["result"].(map[string]any)["ideContext"].(map[string]any)["activeFile"].(map[string]any)["activeSelectionContent"].(string)
	if len(text) == 0 || len(text) > MaxSelection || !utf8.ValidString(text) {
		t.Fatalf("selection of %d bytes sent (valid UTF-8: %v), want 1..%d", len(text), utf8.ValidString(text), MaxSelection)
	}
}

// A workspace that is not the bridge's gets no-client-found, so another router or bridge can
// answer; unknown methods get the routers' error; client discovery is declined; broadcasts are
// not answered.
func TestOtherRequests(t *testing.T) {
	f := newFixture(t, "main.go")
	c := dial(t, f.srv.Path())
	if m, raw := c.ideContext(t.TempDir()); m["resultType"] != "error" || m["error"] != "no-client-found" || m["requestId"] != "r-ctx" {
		t.Fatalf("a foreign workspace answered %s", raw)
	}
	c.send(map[string]any{"type": "broadcast", "method": "thread-stream-state-changed", "params": map[string]any{}})
	c.send(map[string]any{"type": "client-discovery-request", "requestId": "d-1",
		"request": map[string]any{"type": "request", "method": "ide-context"}})
	if m, raw := c.recv(); m["type"] != "client-discovery-response" || m["requestId"] != "d-1" ||
		m["response"].(map[string]any)["canHandle"] != false {
		t.Fatalf("client discovery answered %s (a broadcast must get no answer)", raw)
	}
	c.send(map[string]any{"type": "request", "requestId": "u-1", "method": "open-thread", "params": map[string]any{}})
	if m, raw := c.recv(); m["resultType"] != "error" || m["error"] != "no-handler-for-request" || m["requestId"] != "u-1" {
		t.Fatalf("an unknown method answered %s", raw)
	}
	c.c.Write([]byte{2, 0, 0, 0, '{', '!'}) // not JSON: skipped, the connection goes on
	if m, raw := c.ideContext(f.folder); m["resultType"] != "success" {
		t.Fatalf("after a bad frame: %s", raw)
	}
}

// A frame longer than MaxRequest is refused: that connection ends, nothing is allocated for
// it, and the server goes on serving others.
func TestOversizedFrameRefused(t *testing.T) {
	f := newFixture(t)
	c := dial(t, f.srv.Path())
	hdr := make([]byte, 4)
	binary.LittleEndian.PutUint32(hdr, MaxRequest+1)
	c.c.Write(hdr)
	c.c.Write([]byte(`{"type":"request"`))
	// Closed with unread bytes: EOF or a reset.
	if n, err := c.c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("after an oversized frame: read %d, %v; want the connection closed", n, err)
	}
	c2 := dial(t, f.srv.Path())
	c2.send(map[string]any{"type": "request", "requestId": "i", "method": "initialize"})
	if m, raw := c2.recv(); m["resultType"] != "success" {
		t.Fatalf("the server stopped serving: %s", raw)
	}
}

func testModel(t *testing.T) *ide.Model {
	return ide.New(tabsEditor{}, ide.EditorInfo{Name: "test"}, []string{t.TempDir()}, ide.Events{}, nil)
}

// A codex-ipc directory others can write is refused (Codex refuses it too): no socket is made.
func TestGroupWritableDirRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "codex-ipc")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o770)
	path := filepath.Join(dir, "ipc.sock")
	srv, err := Start(Config{Model: testModel(t), Path: path})
	if err == nil {
		srv.Close()
		t.Fatal("served in a group-writable directory")
	}
	if !errors.Is(err, attach.ErrUnsafe) {
		t.Errorf("error %v, want attach.ErrUnsafe", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a socket was made: %v", err)
	}
}

// A socket another program answers on (a Codex router) is never taken over: Start says
// ErrBusy and that program keeps its socket. One nothing answers on is replaced.
func TestLiveSocketNotTakenOver(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "codex-ipc")
	os.Mkdir(dir, 0o700)
	path := filepath.Join(dir, "ipc.sock")
	owner, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	before, _ := os.Lstat(path)
	if srv, err := Start(Config{Model: testModel(t), Path: path}); !errors.Is(err, ErrBusy) {
		if err == nil {
			srv.Close()
		}
		t.Fatalf("Start over a live socket: %v, want ErrBusy", err)
	}
	after, err := os.Lstat(path)
	if err != nil || !os.SameFile(before, after) {
		t.Fatalf("the owner's socket was replaced or removed: %v", err)
	}
	// The owner still gets its connections.
	go func() {
		if c, err := net.Dial("unix", path); err == nil {
			c.Close()
		}
	}()
	owner.SetDeadline(time.Now().Add(10 * time.Second))
	c, err := owner.Accept()
	if err != nil {
		t.Fatalf("the owner no longer accepts: %v", err)
	}
	c.Close()

	// Stale: the owner went without removing its socket.
	owner.SetUnlinkOnClose(false)
	owner.Close()
	srv, err := Start(Config{Model: testModel(t), Path: path})
	if err != nil {
		t.Fatalf("Start over a stale socket: %v", err)
	}
	srv.Close()
}

// Close removes the socket and ends the connections it serves.
func TestCloseRemovesSocket(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "codex-ipc")
	path := filepath.Join(dir, "ipc.sock")
	srv, err := Start(Config{Model: testModel(t), Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("codex-ipc made with %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	c := dial(t, path)
	srv.Close()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after Close: %v", err)
	}
	if _, err := c.c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("a connection outlived Close: %v", err)
	}
}
