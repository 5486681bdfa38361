package stdio_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// An editor without a diagnostics capability (Nova: its API cannot read other extensions'
// issues) gets getDiagnostics answered by the bridge's own language servers (serve --stdio
// --lsp), in the editor's position encoding; the editor itself is never asked.
func TestLSPDiagnosticsForEditorWithout(t *testing.T) {
	t.Parallel()
	gopls, env := harness.Gopls(t), harness.GoEnv(t)
	s := startSidecarEnv(t, env, "header", "--lsp", ".go="+gopls)
	s.trust(t)
	os.WriteFile(filepath.Join(s.ws, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	path := filepath.Join(s.ws, "main.go")
	src := "package main\n\nfunc main() {\n\t_ = \"😀\"; var s string = 1\n\t_ = s\n}\n"
	os.WriteFile(path, []byte(src), 0o644)
	p := s.initParams()
	caps := allCaps()
	delete(caps, "getDiagnostics")
	p["capabilities"], p["positionEncoding"] = caps, "utf-16"
	c := claude(t, s.initialize(t, p))
	r, err := c.Tool(testbin.Ctx(t), "getDiagnostics", map[string]any{"uri": "file://" + path})
	if err != nil || r.IsError {
		t.Fatalf("getDiagnostics: %+v, %v", r, err)
	}
	var got []struct {
		URI         string `json:"uri"`
		Diagnostics []struct {
			Severity string `json:"severity"`
			Range    struct {
				Start struct{ Line, Character int } `json:"start"`
			} `json:"range"`
		} `json:"diagnostics"`
	}
	json.Unmarshal([]byte(r.Texts()[0]), &got)
	// 😀 is 4 bytes and 2 UTF-16 units: the column is in units, as the editor declared.
	line := strings.Split(src, "\n")[3]
	col := strings.Index(line, "= 1") + 2 - 2
	if len(got) != 1 || len(got[0].Diagnostics) != 1 || got[0].Diagnostics[0].Severity != "Error" ||
		got[0].Diagnostics[0].Range.Start.Line != 3 || got[0].Diagnostics[0].Range.Start.Character != col {
		t.Fatalf("getDiagnostics = %s, want one Error at 3:%d (UTF-16)", r.Texts()[0], col)
	}
	s.noCall(t, "getDiagnostics")
}

// An editor that declares diagnostics keeps answering them itself: its own are what the user
// sees, --lsp or not.
func TestLSPNotUsedWhenEditorHasDiagnostics(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line", "--lsp", ".go=/nonexistent/gopls")
	s.answer("getDiagnostics", func(ctx context.Context, params json.RawMessage) (any, error) {
		return map[string]any{"files": []any{map[string]any{"filePath": filepath.Join(s.ws, "a.go"), "diagnostics": []any{
			map[string]any{"message": "from the editor", "severity": "Warning", "range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 1}}}}}}}, nil
	})
	c := claude(t, s.initialize(t, nil))
	r, err := c.Tool(testbin.Ctx(t), "getDiagnostics", map[string]any{"uri": "file://" + filepath.Join(s.ws, "a.go")})
	if err != nil || r.IsError || !strings.Contains(r.Texts()[0], "from the editor") {
		t.Fatalf("getDiagnostics = %+v, %v; want the editor's", r, err)
	}
}

// Issue 25 item 1: the editor's --lsp servers (Nova passes its settings' commands) start in a
// trusted workspace only. Untrusted, getDiagnostics answers no diagnostics (not an error, which
// the CLI stops asking after three), the model's code tools say that servers are off until the
// folder is trusted, and the server never ran; after `claude-ide-bridge trust` it runs.
func TestLSPUntrustedWorkspace(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "ran")
	server := filepath.Join(t.TempDir(), "fake-ls")
	os.WriteFile(server, []byte("#!/bin/sh\necho > "+marker+"\n"), 0o755)
	s := startSidecar(t, "header", "--lsp", ".go="+server)
	path := filepath.Join(s.ws, "main.go")
	os.WriteFile(path, []byte("package main\n"), 0o644)
	p := s.initParams()
	caps := allCaps()
	delete(caps, "getDiagnostics")
	p["capabilities"] = caps
	init := s.initialize(t, p)
	c := claude(t, init)
	for range 3 {
		r, err := c.Tool(testbin.Ctx(t), "getDiagnostics", map[string]any{"uri": "file://" + path})
		if err != nil || r.IsError || len(r.Texts()) != 1 || !strings.Contains(r.Texts()[0], `"diagnostics":[]`) {
			t.Fatalf("getDiagnostics: %+v, %v; want no diagnostics", r, err)
		}
	}
	text, isErr := connectTools(t, init)("document_symbols", map[string]any{"path": "main.go"})
	if !isErr || !strings.Contains(text, "language servers are off until this workspace is trusted") {
		t.Errorf("document_symbols: %v %q", isErr, text)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the language server ran in an untrusted workspace")
	}
	s.trust(t)
	c.Tool(testbin.Ctx(t), "getDiagnostics", map[string]any{"uri": "file://" + path})
	if _, err := os.Stat(marker); err != nil {
		t.Error("trusted, the language server did not start")
	}
}
