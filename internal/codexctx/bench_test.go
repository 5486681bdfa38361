//go:build unix

package codexctx

import (
	"path/filepath"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
)

// One ide-context round trip over the socket (20 tabs, a 1 KiB selection), against Codex's
// 500 ms budget per message: go test -run X -bench IDEContext ./internal/codexctx
func BenchmarkIDEContext(b *testing.B) {
	folder := b.TempDir()
	var tabs []ide.OpenEditor
	for i := range 20 {
		tabs = append(tabs, ide.OpenEditor{FilePath: filepath.Join(folder, "f", string(rune('a'+i))+".go"), IsActive: i == 0})
	}
	m := ide.New(tabsEditor{tabs}, ide.EditorInfo{Name: "bench", Caps: ide.Capabilities{OpenEditors: true}}, []string{folder}, ide.Events{}, nil)
	m.SelectionChanged(selection(tabs[0].FilePath, string(make([]byte, 1024)), 0, 0, 10, 0))
	srv, err := Start(Config{Model: m, Path: filepath.Join(b.TempDir(), "codex-ipc", "ipc.sock")})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c := dial(b, srv.Path())
	b.ResetTimer()
	for range b.N {
		if m, _ := c.ideContext(folder); m["resultType"] != "success" {
			b.Fatal(m)
		}
	}
}
