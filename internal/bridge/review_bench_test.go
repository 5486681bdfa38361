package bridge_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/texts"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
)

// noDiagnostics answers getDiagnostics with nothing, at once.
type noDiagnostics struct{ ide.Editor }

func (noDiagnostics) Diagnostics(context.Context, string) ([]ide.FileDiagnostics, error) {
	return nil, nil
}

// BenchmarkDiagnosticsSnapshot is the CLI's getDiagnostics {uri} right before an Edit of a 1 MiB
// file, over a real loopback WebSocket, with the record of turns off and on (issue 26: the
// snapshot may add at most 5 ms at p99). Each iteration is a new turn (closeAllDiffTabs, not
// timed), so that every call reads the file. Reports p50 and p99 in ms.
func BenchmarkDiagnosticsSnapshot(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "review=off"
		if on {
			name = "review=on"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			cfg := bridge.Config{
				Editor: noDiagnostics{}, Info: ide.EditorInfo{Name: "Bench", Caps: ide.Capabilities{Diagnostics: true}},
				Folders: []string{dir}, LockDir: b.TempDir(),
			}
			if on {
				cfg.Review = &review.Config{Watch: true}
			}
			br, err := bridge.Start(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer br.Close()
			ctx, c := benchClient(b, br)
			path := filepath.Join(br.Model.Folders()[0], "big.go")
			text := texts.Realistic(1<<20, 0, 1).Old // issue 27's text: distinct source-like lines
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
			args := map[string]any{"uri": "file://" + path}
			var took []time.Duration
			for b.Loop() {
				b.StopTimer()
				if _, err := c.Tool(ctx, "closeAllDiffTabs", map[string]any{}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				t0 := time.Now()
				if _, err := c.Tool(ctx, "getDiagnostics", args); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t0))
			}
			slices.Sort(took)
			ms := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))]) / 1e6 }
			b.ReportMetric(ms(0.5), "p50-ms")
			b.ReportMetric(ms(0.99), "p99-ms")
			// One iteration (bench/run --smoke: -benchtime 1x) is one turn: nothing to check yet.
			if on && len(took) > 1 && br.Review.Turns()[0].Turn < 2 {
				b.Fatal("no turns recorded")
			}
		})
	}
}
