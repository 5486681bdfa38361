package lsp_test

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
)

func goModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if _, ok := files["go.mod"]; !ok {
		files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func newManager(t *testing.T, root string, cfg lsp.Config) *lsp.Manager {
	t.Helper()
	cfg.Root = root
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	m, err := lsp.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", p)
	return len(p), nil
}

// gopls v0.23.0: a type error with its range (UTF-16, the default), severity and path; fixing
// the file on disk clears it; {} answers every file with diagnostics; the generic Request
// reaches the server with the file open.
func TestGoplsTypeError(t *testing.T) {
	gopls := serverBin(t, "GOPLS", "gopls")
	const bad = "package main\n\nfunc main() {\n\t_ = \"é\"; var s string = 1\n\t_ = s\n}\n"
	dir := goModule(t, map[string]string{"main.go": bad})
	m := newManager(t, dir, lsp.Config{Servers: []lsp.ServerConfig{{Extensions: []string{".go"}, Command: []string{gopls}}}, Wait: 30 * time.Second})
	ctx := context.Background()
	path := filepath.Join(dir, "main.go")
	got, err := m.Diagnostics(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != path || len(got[0].Diagnostics) != 1 {
		t.Fatalf("Diagnostics = %+v, want one diagnostic for %s", got, path)
	}
	d := got[0].Diagnostics[0]
	col := uint32(strings.Index(strings.Split(bad, "\n")[3], "= 1") + 2 - 1) // é: 2 bytes, 1 UTF-16 unit
	want := protocol.Range{Start: protocol.Position{Line: 3, Character: col}, End: protocol.Position{Line: 3, Character: col + 1}}
	if d.Severity != protocol.DiagnosticSeverityError || d.Range != want || !strings.Contains(d.Message, "cannot use 1") {
		t.Errorf("diagnostic = %+v, want an error at %v saying cannot use 1", d, want)
	}
	all, err := m.Diagnostics(ctx, "")
	if err != nil || len(all) != 1 || all[0].Path != path {
		t.Errorf("Diagnostics(all) = %+v, %v; want main.go's", all, err)
	}

	// The generic request (what the model tools use): the definition of s.
	var locs []protocol.Location
	err = m.Request(ctx, path, "textDocument/definition", protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI("file://" + path)},
		Position:     protocol.Position{Line: 4, Character: 5},
	}}, &locs)
	if err != nil || len(locs) != 1 || locs[0].Range.Start.Line != 3 {
		t.Errorf("definition of s: %+v, %v; want line 3", locs, err)
	}

	os.WriteFile(path, []byte(strings.Replace(bad, "= 1", "= \"one\"", 1)), 0o644)
	got, err = m.Diagnostics(ctx, path)
	if err != nil || len(got) != 1 || len(got[0].Diagnostics) != 0 {
		t.Errorf("Diagnostics after the fix = %+v, %v; want none", got, err)
	}
	if all, err := m.Diagnostics(ctx, ""); err != nil || len(all) != 0 {
		t.Errorf("Diagnostics(all) after the fix = %+v, %v; want none", all, err)
	}
}

// The CLI edits a file and then asks {} (facts: getDiagnostics {} after an edit): the files
// the servers have open are sent again from disk first, so the answer is for the new text.
func TestGoplsAllAfterEditOnDisk(t *testing.T) {
	gopls := serverBin(t, "GOPLS", "gopls")
	dir := goModule(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	m := newManager(t, dir, lsp.Config{Servers: []lsp.ServerConfig{{Extensions: []string{".go"}, Command: []string{gopls}}}, Wait: 30 * time.Second, WaitAll: 30 * time.Second})
	ctx := context.Background()
	path := filepath.Join(dir, "main.go")
	if got, err := m.Diagnostics(ctx, path); err != nil || len(got[0].Diagnostics) != 0 {
		t.Fatalf("baseline = %+v, %v", got, err)
	}
	os.WriteFile(path, []byte("package main\n\nfunc main() { x := 1 }\n"), 0o644)
	all, err := m.Diagnostics(ctx, "")
	if err != nil || len(all) != 1 || len(all[0].Diagnostics) != 1 || !strings.Contains(all[0].Diagnostics[0].Message, "declared and not used") {
		t.Fatalf("Diagnostics(all) after the edit = %+v, %v; want x declared and not used", all, err)
	}
}

// A file that disappears is closed in the server and is an error, not stale diagnostics.
func TestGoplsDeletedFile(t *testing.T) {
	gopls := serverBin(t, "GOPLS", "gopls")
	dir := goModule(t, map[string]string{"main.go": "package main\n\nfunc main() { x := 1 }\n"})
	m := newManager(t, dir, lsp.Config{Servers: []lsp.ServerConfig{{Extensions: []string{".go"}, Command: []string{gopls}}}, Wait: 30 * time.Second})
	path := filepath.Join(dir, "main.go")
	if got, err := m.Diagnostics(context.Background(), path); err != nil || len(got[0].Diagnostics) != 1 {
		t.Fatalf("Diagnostics = %+v, %v", got, err)
	}
	os.Remove(path)
	if _, err := m.Diagnostics(context.Background(), path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Diagnostics of a deleted file: %v, want not exist", err)
	}
	if all, _ := m.Diagnostics(context.Background(), ""); len(all) != 0 {
		t.Errorf("Diagnostics(all) after the delete = %+v, want none", all)
	}
}

// A file outside the workspace, named directly or through a symlink inside it, is never sent to
// a server (getDiagnostics' uri is the model's choice; gopls quotes identifiers back): ErrOutside,
// and nothing of it comes back.
func TestGoplsOnlyInsideRoot(t *testing.T) {
	gopls := serverBin(t, "GOPLS", "gopls")
	dir := goModule(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	other := goModule(t, map[string]string{"main.go": "package main\n\nvar _ = secretIdentifier\n"})
	os.Symlink(filepath.Join(other, "main.go"), filepath.Join(dir, "link.go"))
	m := newManager(t, dir, lsp.Config{Servers: []lsp.ServerConfig{{Extensions: []string{".go"}, Command: []string{gopls}}}, Wait: 10 * time.Second})
	ctx := context.Background()
	for _, p := range []string{filepath.Join(other, "main.go"), filepath.Join(dir, "link.go")} {
		got, err := m.Diagnostics(ctx, p)
		if !errors.Is(err, lsp.ErrOutside) || len(got) != 0 {
			t.Errorf("Diagnostics(%s) = %+v, %v; want ErrOutside", p, got, err)
		}
		if err := m.Request(ctx, p, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": "file://" + p}}, nil); !errors.Is(err, lsp.ErrOutside) {
			t.Errorf("Request(%s) = %v; want ErrOutside", p, err)
		}
	}
	all, _ := m.Diagnostics(ctx, "")
	for _, f := range all {
		for _, d := range f.Diagnostics {
			if strings.Contains(d.Message, "secretIdentifier") {
				t.Errorf("a diagnostic of the outside file came back: %+v", d)
			}
		}
	}
}
