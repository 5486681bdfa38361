//go:build unix

package lsp_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
)

// TestUntrustedStartsNothing: with Config.Trust refusing, no server process starts, Diagnostics
// and Request are ErrUntrusted, one log line says so; once Trust allows it the server starts
// with a PATH that has no relative or in-workspace entry.
func TestUntrustedStartsNothing(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	out := t.TempDir()
	server := filepath.Join(out, "ls")
	os.WriteFile(server, []byte("#!/bin/sh\necho \"$PATH\" > "+filepath.Join(out, "path")+"\n"), 0o755)
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644)
	t.Setenv("PATH", filepath.Join(root, "bin")+":.:bin::/usr/bin:/bin")
	var logs bytes.Buffer
	trusted := false
	m, err := lsp.New(lsp.Config{Root: root, Servers: []lsp.ServerConfig{{Extensions: []string{".go"}, Command: []string{server}}},
		Log: slog.New(slog.NewTextHandler(&logs, nil)),
		Trust: func() error {
			if trusted {
				return nil
			}
			return errors.New("not trusted")
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	for range 3 {
		if _, err := m.Diagnostics(ctx, filepath.Join(root, "a.go")); !errors.Is(err, lsp.ErrUntrusted) {
			t.Fatalf("Diagnostics = %v, want ErrUntrusted", err)
		}
	}
	if err := m.Request(ctx, filepath.Join(root, "a.go"), "textDocument/hover", nil, nil); !errors.Is(err, lsp.ErrUntrusted) {
		t.Fatalf("Request = %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "path")); err == nil {
		t.Fatal("the server started")
	}
	if n := strings.Count(logs.String(), "language servers are off"); n != 1 {
		t.Errorf("%d log lines, want 1:\n%s", n, logs.String())
	}
	trusted = true
	m.Diagnostics(ctx, filepath.Join(root, "a.go")) // the script exits at once: an error
	b, err := os.ReadFile(filepath.Join(out, "path"))
	if err != nil {
		t.Fatal("trusted, the server did not start")
	}
	if got := strings.TrimSpace(string(b)); got != "/usr/bin:/bin" {
		t.Errorf("the server's PATH = %q, want /usr/bin:/bin", got)
	}
}
