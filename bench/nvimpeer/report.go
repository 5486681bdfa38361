package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"
)

// metrics of one plugin in one repetition.
type metrics map[string]float64

// results are every sample of a run: Samples[target][metric] over repetitions.
type results struct {
	Reps  int   `json:"reps"`
	Sizes []int `json:"sizes"`
	// Repeated is the size of the one round of the earlier repeated-line payload (0: none).
	Repeated int                             `json:"repeated,omitempty"`
	Samples  map[string]map[string][]float64 `json:"samples"`
	Errors   []string                        `json:"errors,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// median of xs; NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// why a row has no number for the peer or for us, by metric; filled where a row cannot be
// measured by construction.
var why = map[string]string{
	"peer/idle_bridge_file_mib":    "no bridge process",
	"peer/idle_bridge_private_mib": "no bridge process",
}

// goal of a row: its text and whether ours o and the peer's p meet it.
type goal func(o, p float64) (string, bool)

func atMostHalf(o, p float64) (string, bool) { return "≤ 0.5 × peer", o <= p/2 }

func peerPlus1MiB(o, p float64) (string, bool) { return "≤ peer + 1 MiB", o <= p+1 }

func (r results) table() string {
	type row struct {
		label, key, unit string
		goal             goal
	}
	var rows []row
	big := sizeName(r.Sizes[len(r.Sizes)-1])
	for _, s := range r.Sizes {
		n := sizeName(s)
		var g goal
		if n == big {
			g = atMostHalf
		}
		rows = append(rows, row{"Diff visible, openDiff " + n + " (realistic text)", "visible_ms_" + n, "ms", g})
	}
	rows = append(rows, row{"Longest main-loop stall while the " + big + " diff opens (realistic text)", "stall_ms_" + big, "ms", atMostHalf},
		row{"CPU time of Neovim (+ our bridge) opening the " + big + " diff, until visible + 300 ms (realistic text)", "open_cpu_ms_" + big, "ms", nil})
	if r.Repeated > 0 {
		n := sizeName(r.Repeated) + "-repeated"
		rows = append(rows,
			row{"Diff visible, openDiff " + sizeName(r.Repeated) + " (earlier payload: one repeated line, one-line old file)", "visible_ms_" + n, "ms", nil},
			row{"Longest main-loop stall while that diff opens (earlier payload)", "stall_ms_" + n, "ms", nil})
	}
	for _, s := range r.Sizes {
		n := sizeName(s)
		rows = append(rows, row{"Accept (`:w` in the diff -> FILE_SAVED), " + n, "accept_ms_" + n, "ms", nil})
	}
	rows = append(rows,
		row{"Selection latency (cursor moved -> selection_changed)", "selection_ms", "ms", nil},
		row{"CPU of Neovim (+ our bridge), 16 clients, cursor moved every 20 ms", "cpu_pct", "%", nil},
		row{"Idle memory the kernel cannot drop (RssAnon + RssShmem): Neovim + bridge (ours) vs Neovim (peer)", "idle_private_mib", "MiB", peerPlus1MiB},
		row{"Idle memory, total RSS: Neovim + bridge (ours) vs Neovim (peer)", "idle_rss_mib", "MiB", nil},
		row{"Of ours: the bridge's mapped files (RssFile: its program text, clean, shared by every bridge)", "idle_bridge_file_mib", "MiB", nil},
		row{"Of ours: the bridge's RssAnon + RssShmem", "idle_bridge_private_mib", "MiB", nil},
	)
	var b strings.Builder
	b.WriteString("| Row | Ours (plugin + bridge) | Peer (claudecode.nvim) | Ours / peer | Goal | Met |\n|---|---:|---:|---:|---|---|\n")
	for _, w := range rows {
		o, p := median(r.Samples["ours"][w.key]), median(r.Samples["peer"][w.key])
		g, met := "reported", ""
		if w.goal != nil {
			var ok bool
			g, ok = w.goal(o, p)
			met = "no"
			if ok {
				met = "yes"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", w.label, cell(o, w.unit, "ours", w.key), cell(p, w.unit, "peer", w.key), ratio(o, p), g, met)
	}
	return b.String()
}

func cell(v float64, unit, target, key string) string {
	if math.IsNaN(v) {
		if s, ok := why[target+"/"+key]; ok {
			return "n/a: " + s
		}
		return "not measured (see errors below)"
	}
	if v >= 100 {
		return fmt.Sprintf("%.0f %s", v, unit)
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}

func ratio(a, b float64) string {
	if math.IsNaN(a) || math.IsNaN(b) || b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

func (r results) write(jsonOut, mdOut string) error {
	if jsonOut != "" {
		b, err := json.MarshalIndent(r, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(jsonOut, b, 0o644); err != nil {
			return err
		}
	}
	md := r.table()
	md += fmt.Sprintf("\nMedians of %d interleaved repetitions.", r.Reps)
	if len(r.Errors) > 0 {
		md += " Errors during the run:\n\n"
		for _, e := range r.Errors {
			md += "- " + strings.ReplaceAll(e, "\n", " ") + "\n"
		}
	} else {
		md += "\n"
	}
	fmt.Fprint(os.Stderr, md)
	if mdOut != "" {
		return os.WriteFile(mdOut, []byte(md), 0o644)
	}
	return nil
}
