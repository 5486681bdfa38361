package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The smoke run must skip, not fail, where the peer or the newest Neovim is absent (issue 14
// item 2: "skips loudly when the peer tarball or the newest Neovim is absent").
func TestMissingNamesWhatIsAbsent(t *testing.T) {
	dir := t.TempDir()
	here := filepath.Join(dir, "x")
	if err := os.WriteFile(here, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ nvim, tar, want string }{
		{here, here, ""},
		{"", here, "Neovim"},
		{filepath.Join(dir, "none"), here, "Neovim"},
		{here, filepath.Join(dir, "none.tar.gz"), "peer tarball"},
	}
	for _, c := range cases {
		got := missing(c.nvim, c.tar)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("missing(%q, %q) = %q, want it to name %q", c.nvim, c.tar, got, c.want)
		}
	}
}

// Every row is in the table; a row with no samples says so instead of showing a number; the
// goals of issue 27 are judged on the medians.
func TestTableRowsAndUnmeasured(t *testing.T) {
	r := results{Reps: 3, Sizes: []int{1 << 20, 10 << 20}, Repeated: 10 << 20, Samples: map[string]map[string][]float64{
		"ours": {"visible_ms_1MiB": {30, 10, 20}, "selection_ms": {50}, "idle_rss_mib": {20}, "stall_ms_10MiB": {60},
			"idle_private_mib": {4.5}, "visible_ms_10MiB": {210}},
		"peer": {"visible_ms_1MiB": {40, 40, 40}, "selection_ms": {100}, "stall_ms_10MiB": {100},
			"idle_private_mib": {3.2}, "visible_ms_10MiB": {400}},
	}}
	tab := r.table()
	for _, want := range []string{
		"| Diff visible, openDiff 1MiB (realistic text) | 20.0 ms | 40.0 ms | 0.50x | reported |  |",
		"| Diff visible, openDiff 10MiB (realistic text) | 210 ms | 400 ms | 0.53x | ≤ 0.5 × peer | no |",
		"| Longest main-loop stall while the 10MiB diff opens (realistic text) | 60.0 ms | 100 ms | 0.60x | ≤ 0.5 × peer | no |",
		"| Selection latency (cursor moved -> selection_changed) | 50.0 ms | 100 ms | 0.50x | reported |  |",
		"| Idle memory the kernel cannot drop (RssAnon + RssShmem): Neovim + bridge (ours) vs Neovim (peer) | 4.5 MiB | 3.2 MiB | 1.41x | ≤ peer + 1 MiB | no |",
		"| Idle memory, total RSS: Neovim + bridge (ours) vs Neovim (peer) | 20.0 MiB | not measured (see errors below) | - | reported |  |",
		"the bridge's mapped files (RssFile: its program text, clean, shared by every bridge) | not measured (see errors below) | n/a: no bridge process |",
		"Diff visible, openDiff 10MiB (earlier payload", "Longest main-loop stall while that diff opens (earlier payload)",
		"Accept (`:w` in the diff -> FILE_SAVED), 1MiB", "Accept (`:w` in the diff -> FILE_SAVED), 10MiB",
		"CPU of Neovim (+ our bridge), 16 clients",
	} {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q:\n%s", want, tab)
		}
	}
	r.Samples["ours"]["idle_private_mib"] = []float64{4.2}
	r.Samples["ours"]["stall_ms_10MiB"] = []float64{50}
	tab = r.table()
	for _, want := range []string{"| 4.2 MiB | 3.2 MiB | 1.31x | ≤ peer + 1 MiB | yes |", "| 50.0 ms | 100 ms | 0.50x | ≤ 0.5 × peer | yes |"} {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q:\n%s", want, tab)
		}
	}
}

func TestMedian(t *testing.T) {
	if got := median([]float64{5, 1, 3, 2}); got != 2.5 {
		t.Errorf("median = %v, want 2.5", got)
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing is not NaN")
	}
}

// readLock takes the port from the file name and the token from authToken, as the CLI does.
func TestReadLock(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "41234.lock"), []byte(`{"pid":1,"authToken":"tok","transport":"ws"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	port, token, err := readLock(dir)
	if err != nil || port != 41234 || token != "tok" {
		t.Fatalf("readLock = %d, %q, %v", port, token, err)
	}
}
