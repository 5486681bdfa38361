package modeltools_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/navtest"
)

// The bridge's own source: internal/lsp's Manager starting a real gopls (what serve uses).
// Every tool gives exactly the places read off testdata/nav; a file with no configured server
// is an error naming the flag that would add one.
func TestToolsBridgeLSP(t *testing.T) {
	root := navRoot(t)
	m, err := lsp.New(lsp.Config{Root: root, Servers: []lsp.ServerConfig{{Extensions: []string{".go"}, Command: []string{harness.Gopls(t)}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	s := serveTools(t, modeltools.Options{Source: modeltools.First(m.ToolSource()), Folders: func() []string { return []string{root} }})
	navtest.Run(t, func(name string, args map[string]any) (string, bool) { return call(t, s, name, args) })

	text, isErr := call(t, s, "document_symbols", map[string]any{"path": "go.mod"})
	want := "no language server for " + filepath.Join(root, "go.mod") + " (the bridge: no language server configured for .mod files (serve --lsp .mod=COMMAND))"
	if !isErr || !strings.Contains(text, want) {
		t.Errorf("got %v %q\nwant %q", isErr, text, want)
	}
}
