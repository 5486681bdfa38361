package nvimtest

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestAcceptLatency measures `:w` in the proposal to FILE_SAVED at the Claude
// client (issue 14's "accept" row) at 1 and 10 MiB; a measurement, not an
// assertion: it runs only with NVIM_BENCH=N (N repetitions, median logged).
// Each time includes one `nvim --remote-expr` round trip (tens of ms, the
// same for every plugin version). NVIM_PLUGIN_DIR measures another checkout
// of the plugin (e.g. a `git archive` of an older commit).
func TestAcceptLatency(t *testing.T) {
	reps := 0
	fmt.Sscan(os.Getenv("NVIM_BENCH"), &reps)
	if reps <= 0 {
		t.Skip("a measurement: set NVIM_BENCH=<repetitions> to run it")
	}
	e := newEnv(t, nil, true)
	for _, mib := range []int{1, 10} {
		line := strings.Repeat("x", 79) + "\n"
		content := strings.Repeat(line, mib<<20/len(line))
		var took []time.Duration
		for i := 0; i < reps; i++ {
			path := e.file(t, fmt.Sprintf("big%d.txt", i), "old\n")
			tab := fmt.Sprintf("✻ [Claude Code] big%d.txt (%06d) ⧉", i, i)
			ch := e.openDiff(t, path, content, tab)
			e.waitDiffs(t, tab+"=pending")
			t0 := time.Now()
			e.n.ex(t, "write")
			r := toolOf(t, await(t, ch))
			took = append(took, time.Since(t0))
			if texts := r.texts(); len(texts) != 2 || texts[0] != "FILE_SAVED" || len(texts[1]) != len(content) {
				t.Fatalf("accept result: %d texts", len(texts))
			}
			e.c.tool(t, "close_tab", map[string]any{"tab_name": tab})
			e.waitDiffs(t)
		}
		sort.Slice(took, func(a, b int) bool { return took[a] < took[b] })
		t.Logf("accept %d MiB (%s): median %v of %d (min %v, max %v)", mib, nvimBin, took[len(took)/2].Round(time.Millisecond),
			reps, took[0].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond))
	}
}
