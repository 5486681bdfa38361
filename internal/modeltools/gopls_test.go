package modeltools_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// goplsSource is a minimal LSP client of a real gopls for these tests: it opens each file it
// is asked about from disk and forwards the request. (The bridge's own client, internal/lsp,
// is tested through serve in cmd/claude-ide-bridge.)
type goplsSource struct {
	conn   *jsonrpc.Conn
	cmd    *exec.Cmd
	done   chan struct{}
	mu     sync.Mutex
	opened map[string]bool
	calls  int
}

func startGopls(t testing.TB, root string) *goplsSource {
	t.Helper()
	cmd := exec.Command(harness.Gopls(t))
	cmd.Dir = root
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g := &goplsSource{cmd: cmd, done: make(chan struct{}), opened: map[string]bool{}}
	g.conn = jsonrpc.NewConn(jsonrpc.NewHeaderStream(stdout, stdin), func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "workspace/configuration" {
			var p struct{ Items []json.RawMessage }
			json.Unmarshal(req.Params, &p)
			return make([]any, len(p.Items)), nil
		}
		return nil, nil // window/workDoneProgress/create, client/registerCapability, ...
	})
	go func() {
		defer close(g.done)
		g.conn.Run(context.Background())
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var init json.RawMessage
	err = g.conn.Call(ctx, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": "file://" + root,
		"workspaceFolders": []any{map[string]string{"uri": "file://" + root, "name": "nav"}},
		"capabilities": map[string]any{"textDocument": map[string]any{
			"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": true},
		}},
	}, &init)
	if err != nil {
		t.Fatal("gopls initialize:", err)
	}
	g.conn.Notify(ctx, "initialized", map[string]any{})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		g.conn.Call(ctx, "shutdown", nil, nil)
		g.conn.Notify(ctx, "exit", nil)
		select {
		case <-g.done:
		case <-time.After(10 * time.Second):
		}
		g.conn.Close()
		<-g.done
		cmd.Process.Kill()
		cmd.Wait()
	})
	return g
}

func (g *goplsSource) Request(ctx context.Context, path, method string, params, result any) (modeltools.Answer, error) {
	g.mu.Lock()
	g.calls++
	open := !g.opened[path]
	g.opened[path] = true
	g.mu.Unlock()
	if open {
		text, err := os.ReadFile(path)
		if err != nil {
			return modeltools.Answer{}, err
		}
		g.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": "file://" + path, "languageId": "go", "version": 1, "text": string(text)}})
	}
	return modeltools.Answer{Encoding: "utf-16"}, g.conn.Call(ctx, method, params, result)
}
