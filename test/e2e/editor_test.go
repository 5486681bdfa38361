package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// editor is a scripted editor driving `claude-ide-bridge serve --stdio` over
// the editor protocol (docs/editor-protocol.md), with newline framing.
type editor struct {
	t      testing.TB
	bridge *proc
	conn   *jsonrpc.Conn
	Init   initResult

	mu      sync.Mutex
	got     []editorMsg // every request and notification from the bridge
	changed chan struct{}
	answers map[string]func(params json.RawMessage) (any, error)
	runDone chan struct{}
}

// editorMsg is one message the bridge sent the editor.
type editorMsg struct {
	Method string
	Params map[string]any
}

type initResult struct {
	Port     int               `json:"port"`
	LockPath string            `json:"lockPath"`
	IDEName  string            `json:"ideName"`
	Env      map[string]string `json:"env"`
}

// startEditor starts the bridge in stdio mode as the editor's child and
// initializes it for folder, with the lock in config.
func startEditor(t testing.TB, config, folder string, args ...string) *editor {
	t.Helper()
	return startEditorCaps(t, config, folder, nil, args...)
}

// startEditorCaps is startEditor declaring the capabilities in caps too.
func startEditorCaps(t testing.TB, config, folder string, caps map[string]any, args ...string) *editor {
	t.Helper()
	return startEditorWith(t, config, folder, editorOptions{Caps: caps}, args...)
}

// editorOptions: more for startEditorWith.
type editorOptions struct {
	Caps map[string]any // capabilities declared besides (or instead of) the defaults
	Env  []string       // added to the bridge's environment
	Init map[string]any // more initialize params
}

// startEditorWith is startEditor with o.
func startEditorWith(t testing.TB, config, folder string, o editorOptions, args ...string) *editor {
	t.Helper()
	caps, env := o.Caps, o.Env
	// A short keepalive: the real CLI answers pings at once, and a stopped one is dropped fast.
	p, cmd := startBridge(t, config, append([]string{"--stdio", "--keepalive", "3s"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.run(t)
	e := &editor{t: t, bridge: p, changed: make(chan struct{}), runDone: make(chan struct{}),
		answers: map[string]func(json.RawMessage) (any, error){}}
	// Defaults: a diff is shown, diagnostics are empty, everything else works.
	e.Answer("getDiagnostics", func(json.RawMessage) (any, error) { return map[string]any{"files": []any{}}, nil })
	e.conn = jsonrpc.NewConn(jsonrpc.NewLineStream(stdout, stdin), e.handle)
	go func() {
		defer close(e.runDone)
		_ = e.conn.Run(context.Background())
	}()
	t.Cleanup(func() {
		// EOF on stdin: "the bridge closes its WebSocket clients with 1001,
		// settles pending diffs ..., removes its lock file and exits within a second".
		e.conn.Close()
		select {
		case <-e.runDone:
		case <-time.After(10 * time.Second):
			t.Errorf("editor connection did not stop")
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	all := map[string]any{"openFile": true, "showDiff": true, "canCloseTabs": true,
		"getOpenEditors": true, "getCurrentSelection": true, "checkDocumentDirty": true,
		"saveDocument": true, "getDiagnostics": true, "setBufferText": true}
	for k, v := range caps {
		all[k] = v
	}
	init := map[string]any{
		"name": "E2E", "pid": os.Getpid(), "workspaceFolders": []string{folder},
		"positionEncoding": "utf-8", "trackSelection": true, "capabilities": all,
	}
	for k, v := range o.Init {
		init[k] = v
	}
	err = e.conn.Call(ctx, "initialize", init, &e.Init)
	if err != nil {
		t.Fatalf("editor initialize: %v", err)
	}
	if e.Init.Port == 0 {
		t.Fatalf("initialize result without port: %+v", e.Init)
	}
	return e
}

// Answer sets how the editor answers bridge requests for method.
func (e *editor) Answer(method string, f func(params json.RawMessage) (any, error)) {
	e.mu.Lock()
	e.answers[method] = f
	e.mu.Unlock()
}

func (e *editor) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var params map[string]any
	_ = json.Unmarshal(req.Params, &params)
	e.mu.Lock()
	e.got = append(e.got, editorMsg{Method: req.Method, Params: params})
	close(e.changed)
	e.changed = make(chan struct{})
	f := e.answers[req.Method]
	e.mu.Unlock()
	if f != nil {
		return f(req.Params)
	}
	return map[string]any{}, nil
}

// Wait waits until the bridge sent method with params satisfying match (nil:
// any) and returns the first such message.
func (e *editor) Wait(ctx context.Context, method string, match func(map[string]any) bool) editorMsg {
	e.t.Helper()
	for {
		e.mu.Lock()
		got, ch := e.got, e.changed
		e.mu.Unlock()
		for _, m := range got {
			if m.Method == method && (match == nil || match(m.Params)) {
				return m
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			e.t.Fatalf("editor never got %s: %v\neditor got: %s", method, ctx.Err(), e.dump())
		}
	}
}

func (e *editor) dump() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	for _, m := range e.got {
		p, _ := json.Marshal(m.Params)
		fmt.Fprintf(&b, "%s %s\n", m.Method, short(string(p)))
	}
	return b.String()
}

// Call makes an editor request, bounded by ctx.
func (e *editor) Call(ctx context.Context, method string, params, result any) error {
	return e.conn.Call(ctx, method, params, result)
}

// Notify sends an editor notification.
func (e *editor) Notify(ctx context.Context, method string, params any) {
	e.t.Helper()
	if err := e.conn.Notify(ctx, method, params); err != nil {
		e.t.Fatalf("editor notify %s: %v", method, err)
	}
}
