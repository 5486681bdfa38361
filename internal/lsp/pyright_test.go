package lsp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
)

// pyright from npm (scripts/ensure-language-servers): a type error with its range and severity;
// fixing the file clears it; the unchanged file is answered from what was published.
func TestPyrightTypeError(t *testing.T) {
	pyright := serverBin(t, "PYRIGHT_LANGSERVER", "pyright-langserver")
	dir := t.TempDir()
	path := filepath.Join(dir, "m.py")
	const bad = "def f() -> None:\n    x: int = \"a\"\n    print(x)\n"
	os.WriteFile(path, []byte(bad), 0o644)
	m := newManager(t, dir, lsp.Config{Servers: []lsp.ServerConfig{{Extensions: []string{".py"}, Command: []string{pyright, "--stdio"}}}, Wait: 60 * time.Second})
	ctx := context.Background()
	start := time.Now()
	got, err := m.Diagnostics(ctx, path)
	t.Logf("first answer after %v (noisy: shared machine)", time.Since(start))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != path || len(got[0].Diagnostics) != 1 {
		t.Fatalf("Diagnostics = %+v, want one error in %s", got, path)
	}
	d := got[0].Diagnostics[0]
	col := uint32(strings.Index(strings.Split(bad, "\n")[1], `"a"`))
	want := protocol.Range{Start: protocol.Position{Line: 1, Character: col}, End: protocol.Position{Line: 1, Character: col + 3}}
	if d.Severity != protocol.DiagnosticSeverityError || d.Range != want || !strings.Contains(d.Message, `"int"`) {
		t.Errorf("diagnostic = %+v, want an error at %v about int", d, want)
	}
	os.WriteFile(path, []byte(strings.Replace(bad, `"a"`, "1", 1)), 0o644)
	start = time.Now()
	got, err = m.Diagnostics(ctx, path)
	t.Logf("answer after the fix after %v", time.Since(start))
	if err != nil || len(got) != 1 || len(got[0].Diagnostics) != 0 {
		t.Fatalf("Diagnostics after the fix = %+v, %v; want none", got, err)
	}
}
