//go:build linux

package stdio_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/navtest"
)

// bigFile writes a 30 MiB file of short lines in ws, "needle" on its last line.
func bigFile(t *testing.T, ws string) string {
	t.Helper()
	path := filepath.Join(ws, "big.txt")
	line := "func f() { return 0123456789 }\n" // 31 bytes
	if err := os.WriteFile(path, []byte(strings.Repeat(line, (30<<20)/len(line))+"needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// answered checks n answers of parallel calls: each one served, or refused with a clear error
// naming the memory budget. It returns how many were refused.
func answered(t *testing.T, what string, texts []string, isErr []bool) int {
	t.Helper()
	refused := 0
	for i, text := range texts {
		if isErr[i] {
			if !strings.Contains(text, "memory budget") || !strings.Contains(text, "big.txt") {
				t.Fatalf("%s %d: %.300q, want a refusal naming the file and the memory budget", what, i, text)
			}
			refused++
		}
	}
	return refused
}

// burst makes n calls at once and returns each one's text and whether it was an error.
func burst(n int, call func() (string, bool)) (texts []string, isErr []bool) {
	texts, isErr = make([]string, n), make([]bool, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			texts[i], isErr[i] = call()
		}()
	}
	wg.Wait()
	return texts, isErr
}

// alive fails the test when the bridge has exited.
func alive(t *testing.T, exited chan error) {
	t.Helper()
	select {
	case err := <-exited:
		t.Fatalf("the bridge exited: %v", err)
	default:
	}
}

// Issue 35 item 5: 60 parallel openFile {startText} on a 30 MiB file over the real WebSocket
// killed the bridge under a 3 GiB address-space limit: each read's grant ended with the read
// while openFile kept the text and two copies of it until the editor answered. The text is now
// counted while it is held and let go before the editor is asked: the bridge lives, every call
// is served (the selection found on the last line) or refused with a clear error.
func TestParallelOpenFileHeldInBudget(t *testing.T) {
	t.Parallel()
	const n = 60
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	path := bigFile(t, ws)
	e, r, exited := startLimited(t, ws, allCaps(), &rawEditor{slow: map[string]time.Duration{"openFile": 3 * time.Second}})
	go func() { // the editor's view of the requests is not looked at
		for range e.lines {
		}
	}()
	c := claude(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	texts, isErr := burst(n, func() (string, bool) {
		res, err := c.Tool(ctx, "openFile", map[string]any{"filePath": path, "startText": "needle", "makeFrontmost": false})
		if err != nil {
			return "protocol error: " + err.Error(), true
		}
		return strings.Join(res.Texts(), ""), res.IsError
	})
	alive(t, exited)
	refused := answered(t, "openFile", texts, isErr)
	for i, text := range texts {
		if !isErr[i] && !strings.Contains(text, `"lineCount":`+fmt.Sprint((30<<20)/31+2)) {
			t.Fatalf("openFile %d served: %.300q, want the file's line count", i, text)
		}
	}
	t.Logf("%d served, %d refused", n-refused, refused)
	// Still answering, its budget given back: one more is served.
	res := tool(t, c, "openFile", map[string]any{"filePath": path, "startText": "needle", "makeFrontmost": false})
	if res.IsError {
		t.Fatalf("openFile after the burst: %q", res.Texts())
	}
	alive(t, exited)
}

// Issue 35 item 5: 60 parallel calls of the model's code tools (/mcp) on a 30 MiB file killed
// the bridge under a 3 GiB address-space limit: the read's grant ended with the read while the
// call kept the text, a copy and a slice of its lines until the language server answered. The
// text and its lines are now counted until the call is answered: the bridge lives, every call
// is served or refused with an MCP error naming the memory budget.
func TestParallelModelToolsHeldInBudget(t *testing.T) {
	t.Parallel()
	const n = 60
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	bigFile(t, ws)
	caps := allCaps()
	caps["lspRequest"] = true
	e, r, exited := startLimited(t, ws, caps, &rawEditor{
		slow:   map[string]time.Duration{"lspRequest": 3 * time.Second},
		answer: map[string]string{"lspRequest": `{"encoding":"utf-8","server":"slow-ls","result":null}`},
	})
	go func() {
		for range e.lines {
		}
	}()
	cfg, err := discovery.ReadMCPConfig(filepath.Dir(r.LockPath), r.Port)
	if err != nil {
		t.Fatal(err)
	}
	srv := cfg.MCPServers[discovery.MCPServerName]
	s := navtest.Connect(t, srv.URL, strings.TrimPrefix(srv.Headers["Authorization"], "Bearer "))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	last := (30<<20)/31 + 1 // the needle's line
	call := func() (string, bool) {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "definition", Arguments: map[string]any{"path": "big.txt", "line": last, "symbol": "needle"}})
		if err != nil {
			return "protocol error: " + err.Error(), true
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String(), res.IsError
	}
	texts, isErr := burst(n, call)
	alive(t, exited)
	refused := answered(t, "definition", texts, isErr)
	for i, text := range texts {
		if !isErr[i] && !strings.Contains(text, "No definition found") {
			t.Fatalf("definition %d served: %.300q, want the editor's empty answer", i, text)
		}
	}
	t.Logf("%d served, %d refused", n-refused, refused)
	if text, isErr := call(); isErr {
		t.Fatalf("definition after the burst: %q", text)
	}
	alive(t, exited)
}
