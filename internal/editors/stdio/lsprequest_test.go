package stdio_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/navtest"
)

// connectTools connects an MCP client to the code tools of the bridge, from its config file.
func connectTools(t *testing.T, r initResult) func(string, map[string]any) (string, bool) {
	dir := filepath.Dir(r.LockPath)
	c, err := discovery.ReadMCPConfig(dir, r.Port)
	if err != nil {
		t.Fatal(err)
	}
	srv := c.MCPServers[discovery.MCPServerName]
	s := navtest.Connect(t, srv.URL, strings.TrimPrefix(srv.Headers["Authorization"], "Bearer "))
	return func(name string, args map[string]any) (string, bool) { return navtest.Call(t, s, name, args) }
}

// lspRequest (docs/editor-protocol.md): the request carries the LSP params with the column in
// UTF-16 and the same column in every unit; the editor's answer is read in the encoding it
// names, and columns reach the model counted in characters.
func TestLSPRequest(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line")
	r := s.initWith(t, map[string]bool{"lspRequest": true})
	call := connectTools(t, r)
	path := s.writeFile(t, "x.go", "package x\n\nvar _ = \"é😀\" + Ünï()\n")

	// "Ünï" on line 3 starts after `var _ = "é😀" + `: 19 bytes, 16 UTF-16 units, 15 characters.
	s.answer("lspRequest", func(_ context.Context, raw json.RawMessage) (any, error) {
		var req struct {
			FilePath string `json:"filePath"`
			Method   string `json:"method"`
			Params   struct {
				TextDocument struct{ URI string } `json:"textDocument"`
				Position     struct{ Line, Character int }
			} `json:"params"`
			Position map[string]int `json:"position"`
		}
		json.Unmarshal(raw, &req)
		if req.FilePath != path || req.Method != "textDocument/definition" || req.Params.TextDocument.URI != "file://"+path ||
			req.Params.Position.Line != 2 || req.Params.Position.Character != 16 ||
			req.Position["utf-8"] != 19 || req.Position["utf-16"] != 16 || req.Position["utf-32"] != 15 {
			t.Errorf("lspRequest %s", raw)
		}
		return map[string]any{"encoding": "utf-8", "server": "fake-ls", "result": map[string]any{
			"uri": "file://" + path, "range": map[string]any{"start": map[string]int{"line": 2, "character": 19}, "end": map[string]int{"line": 2, "character": 24}}}}, nil
	})
	text, isErr := call("definition", map[string]any{"path": "x.go", "line": 3, "symbol": "Ünï"})
	navtest.Equal(t, "definition", navtest.Places(text), []string{`x.go:3:16: var _ = "é😀" + Ünï()`})
	if isErr {
		t.Errorf("error: %s", text)
	}

	// The editor has no server for the file: its reason reaches the model.
	s.reply("lspRequest", `{"noServer": "no language server is attached to x.go in Scripted"}`)
	text, isErr = call("references", map[string]any{"path": "x.go", "line": 3, "symbol": "Ünï"})
	if !isErr || !strings.Contains(text, "no language server for "+path+" (the editor: no language server is attached to x.go in Scripted; the bridge: has no language servers of its own here)") {
		t.Errorf("noServer: %v %q", isErr, text)
	}
	// The server's own error, too.
	s.answer("lspRequest", func(context.Context, json.RawMessage) (any, error) {
		return nil, jsonrpc.Errorf(-32000, "fake-ls: no identifier found")
	})
	text, isErr = call("hover", map[string]any{"path": "x.go", "line": 3, "symbol": "Ünï"})
	if !isErr || !strings.Contains(text, "fake-ls: no identifier found") {
		t.Errorf("error: %v %q", isErr, text)
	}
}

// An editor without the lspRequest capability is never asked; the model is told why.
func TestLSPRequestNotDeclared(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line")
	lspNotAsked(t, s, s.initialize(t, nil), "(Scripted: does not share its language servers with the bridge; the bridge: has no language servers of its own here)")
}

// With a path map the editor's language servers are not asked, even when declared: paths
// inside LSP params and results are not translated (docs/model-tools.md).
func TestLSPRequestNotWithPathMap(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line", "--path-map", "/=/")
	lspNotAsked(t, s, s.initWith(t, map[string]bool{"lspRequest": true}), "Scripted: does not share its language servers with the bridge")
}

// lspNotAsked has the model ask a definition in x.go: the answer is an error that says why
// (contains want), and the editor is not sent lspRequest.
func lspNotAsked(t *testing.T, s *sidecar, r initResult, want string) {
	t.Helper()
	call := connectTools(t, r)
	s.writeFile(t, "x.go", "package x\n")
	text, isErr := call("definition", map[string]any{"path": "x.go", "line": 1, "symbol": "x"})
	if !isErr || !strings.Contains(text, want) {
		t.Errorf("%v %q, want an error saying %q", isErr, text, want)
	}
	s.noCall(t, "lspRequest")
}
