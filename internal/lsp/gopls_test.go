package lsp_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
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

func TestGoplsTypeError(t *testing.T) {
	gopls := serverBin(t, "GOPLS", "gopls")
	dir := goModule(t, map[string]string{"main.go": "package main\n\nfunc main() {\n\tvar s string = 1\n\t_ = s\n}\n"})
	m := newManager(t, dir, lsp.Config{Servers: []lsp.ServerConfig{{Extensions: []string{".go"}, Command: []string{gopls}}}, Wait: 30 * time.Second})
	ctx := context.Background()
	path := filepath.Join(dir, "main.go")
	start := time.Now()
	got, err := m.Diagnostics(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first: %v %+v", time.Since(start), got)
	if len(got) != 1 || len(got[0].Diagnostics) != 1 {
		t.Fatalf("got %+v", got)
	}
	d := got[0].Diagnostics[0]
	if d.Severity != protocol.DiagnosticSeverityError || d.Range.Start.Line != 3 {
		t.Errorf("diag %+v", d)
	}
	os.WriteFile(path, []byte("package main\n\nfunc main() {\n\tvar s string = \"x\"\n\t_ = s\n}\n"), 0o644)
	start = time.Now()
	got, err = m.Diagnostics(ctx, path)
	t.Logf("fixed: %v %+v %v", time.Since(start), got, err)
	start = time.Now()
	os.WriteFile(path, []byte("package main\n\n// comment\nfunc main() {\n\tvar s string = \"x\"\n\t_ = s\n}\n"), 0o644)
	got, err = m.Diagnostics(ctx, path)
	t.Logf("comment: %v %+v %v", time.Since(start), got, err)
	start = time.Now()
	got, err = m.Diagnostics(ctx, path)
	t.Logf("unchanged: %v %+v %v", time.Since(start), got, err)
}
