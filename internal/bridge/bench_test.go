package bridge_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/texts"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
)

// acceptingEditor accepts every diff the moment it is shown, with the proposed text. Only
// showDiff is declared, so the Model calls nothing but ShowDiff and CloseDiff (the embedded nil
// Editor is never reached).
type acceptingEditor struct {
	ide.Editor
	model func() *ide.Model
}

func (e acceptingEditor) ShowDiff(ctx context.Context, p ide.ShowDiffParams) error {
	// The diff is registered before ShowDiff is called, so the accept finds it.
	return e.model().Decide(p.Seq, ide.Decision{Accept: true, Text: p.NewContents})
}

func (e acceptingEditor) CloseDiff(ctx context.Context, tab string) error { return nil }

// benchClient is a Claude client of br that has done the CLI's handshake, and a context that
// ends with the benchmark.
func benchClient(b *testing.B, br *bridge.Bridge) (context.Context, *probe.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	b.Cleanup(cancel)
	c, _, err := probe.Dial(ctx, br.Port(), br.Token(), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	if _, err := c.Handshake(ctx); err != nil {
		b.Fatal(err)
	}
	return ctx, c
}

// BenchmarkOpenDiffRoundTrip is the Claude side of an accepted edit of a 10 MiB file: openDiff
// over a real loopback WebSocket until FILE_SAVED with the text comes back (then close_tab, as
// the CLI does, outside the timing).
func BenchmarkOpenDiffRoundTrip(b *testing.B) {
	var br *bridge.Bridge
	var err error
	ed := acceptingEditor{model: func() *ide.Model { return br.Model }}
	br, err = bridge.Start(bridge.Config{
		Editor: ed, Info: ide.EditorInfo{Name: "Bench", Caps: ide.Capabilities{ShowDiff: true}},
		Folders: []string{b.TempDir()}, LockDir: b.TempDir(),
	})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	ctx, c := benchClient(b, br)
	// Issue 27's text (bench/texts): distinct source-like lines, 10 hunks, the old file on disk.
	p := texts.Realistic(10<<20, 10, 1)
	text := p.New
	path := filepath.Join(br.Model.Folders()[0], "a.go")
	if err := os.WriteFile(path, []byte(p.Old), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		tab := fmt.Sprintf("✻ [Claude Code] a.go (%06x) ⧉", i)
		r, err := c.Tool(ctx, "openDiff", map[string]any{"old_file_path": path, "new_file_path": path, "new_file_contents": text, "tab_name": tab})
		if err != nil {
			b.Fatal(err)
		}
		if t := r.Texts(); len(t) != 2 || t[0] != "FILE_SAVED" || len(t[1]) != len(text) {
			b.Fatalf("openDiff answered %d blocks, first %.40q", len(t), t)
		}
		b.StopTimer()
		if _, err := c.Tool(ctx, "close_tab", map[string]any{"tab_name": tab}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
