//go:build unix

package lsp_test

import (
	"context"
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// A FIFO named like a source file is refused without being opened (opening it would block until
// a writer came): the text a server is sent comes through the bridge's one bounded read of user
// files (issue 15).
func TestSpecialFilesRefused(t *testing.T) {
	dir, _ := fakeFile(t)
	fifo := filepath.Join(dir, "pipe.fake")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, dir, lsp.Config{Servers: []lsp.ServerConfig{{Extensions: []string{".fake"}, Command: []string{fakeServer(t), "silent"}}}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := m.Diagnostics(ctx, fifo); !errors.Is(err, userfile.ErrSpecial) {
		t.Fatalf("Diagnostics on a FIFO: %v, want userfile.ErrSpecial", err)
	}
}
