package lsp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
)

// Issue 35 item 5: the text of a document the server has open is counted in the memory budget
// as long as the server has it, and given back when the server is gone. Not parallel: it reads
// the process's budget.
func TestOpenDocumentHeldInBudget(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.fake")
	if err := os.WriteFile(path, []byte(strings.Repeat("x\n", 1<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	base := membudget.Default.Used()
	m := newManager(t, dir, lsp.Config{
		Servers: []lsp.ServerConfig{{Extensions: []string{".fake"}, Command: []string{fakeServer(t), "quiet"}}},
		Wait:    100 * time.Millisecond,
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := m.Diagnostics(ctx, path); err != nil {
		t.Fatal(err)
	}
	if held := membudget.Default.Used() - base; held < 2<<20 || held > 2<<20+1<<10 {
		t.Fatalf("with the 2 MiB file open the budget holds %d more bytes, want its size", held)
	}
	m.Close()
	if held := membudget.Default.Used() - base; held != 0 {
		t.Fatalf("the server gone, the budget still holds %d more bytes", held)
	}
}
