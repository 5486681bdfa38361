package main

import (
	"fmt"
	"math"
	"strings"
)

// results are all numbers of a run: per target, one metrics map per repetition.
type results struct {
	Reps      int                  `json:"reps"`
	Smoke     bool                 `json:"smoke"`
	DiffBytes int                  `json:"diffBytes"`
	Debounce  float64              `json:"debounceMs"`
	Runs      map[string][]metrics `json:"runs"`
	// Before names the earlier build measured as target "before" (-before-label); "" if none.
	Before string `json:"before,omitempty"`
}

// med is the median over repetitions of one metric, NaN when missing.
func (r results) med(target, key string) float64 {
	var xs []float64
	for _, m := range r.Runs[target] {
		if v, ok := m[key]; ok {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return math.NaN()
	}
	return median(xs)
}

// row is one line of the table. goal returns the goal's text and whether it was met; nil means
// reported only.
type row struct {
	name, key, unit string
	echo            bool
	goal            func(b, n, e float64) (string, bool)
	limitKey        string // the echo run's metric in the limit column (default: key)
	nodeTarget      string // the Node run set against it (default "node")
}

// nodeKeys names the Node run's metric for a row whose bridge metric has no Node twin: Node has
// no terminal mode, so `serve --auto accept` is set against its sidecar answering at once.
var nodeKeys = map[string]string{"serve_auto_ms": "opendiff_ms", "serve_auto_nodecli_ms": "opendiff_nodecli_ms",
	"serve_auto_cpu_ms": "opendiff_cpu_ms", "serve_auto_nodecli_cpu_ms": "opendiff_nodecli_cpu_ms"}

func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	case math.Abs(v) >= 0.1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func ratio(a, b float64) string {
	if math.IsNaN(a) || math.IsNaN(b) || b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// rows are the table's lines, in order.
func (r results) rows(cfg config) []row {
	deb := r.Debounce
	return []row{
		{"Start-up to lock file written (`serve --stdio`, editor handshake)", "startup_ms", "ms", false,
			func(b, n, e float64) (string, bool) { return "≤ 0.20 × Node", b <= n/5 }, "", ""},
		{"Idle RSS, one client connected", "idle_rss_mib", "MiB", false,
			func(b, n, e float64) (string, bool) { return "≤ 0.33 × Node and < 20 MiB", b <= n/3 && b < 20 }, "", ""},
		{fmt.Sprintf("Idle CPU over %s, one client connected", cfg.idle), "idle_cpu_s", "CPU s", false, nil, "", ""},
		{"Idle memory the kernel cannot drop (RssAnon + RssShmem), one client connected", "idle_private_mib", "MiB", false, nil, "", ""},
		{fmt.Sprintf("openDiff round trip, %s realistic file (client → sidecar → editor → sidecar → client), Go client", size(r.DiffBytes)), "opendiff_ms", "ms", true,
			func(b, n, e float64) (string, bool) {
				return "≤ 1.0 × Node and ≤ 2.0 × limit", b <= n && b <= 2*e
			}, "", ""},
		{fmt.Sprintf("openDiff round trip, %s realistic file, Node client (`ws`)", size(r.DiffBytes)), "opendiff_nodecli_ms", "ms", true,
			func(b, n, e float64) (string, bool) {
				return "≤ 1.0 × Node and ≤ 2.0 × limit", b <= n && b <= 2*e
			}, "", ""},
		{"Node client's own JSON.parse of that answer (after the round trip; the CLI parses every message)", "opendiff_nodecli_parse_ms", "ms", false, nil, "", ""},
		{fmt.Sprintf("openDiff round trip, %s earlier payload (one-line old file, a 3-line stanza repeated), Go client", size(r.DiffBytes)), "opendiff_earlier_ms", "ms", false, nil, "", ""},
		{fmt.Sprintf("openDiff round trip, %s earlier payload, Node client (`ws`)", size(r.DiffBytes)), "opendiff_earlier_nodecli_ms", "ms", false, nil, "", ""},
		{fmt.Sprintf("openDiff round trip, %s realistic file, `serve --auto accept` (the terminal reviewer, no editor) against the Node sidecar answering at once (no editor either), Go client", size(r.DiffBytes)), "serve_auto_ms", "ms", true,
			func(b, n, e float64) (string, bool) {
				return "≤ 0.5 × Node and ≤ 2.5 × limit", b <= n/2 && b <= 2.5*e
			}, "opendiff_ms", "nodeatonce"},
		{fmt.Sprintf("openDiff round trip, %s realistic file, `serve --auto accept` against the Node sidecar answering at once, Node client (`ws`)", size(r.DiffBytes)), "serve_auto_nodecli_ms", "ms", true,
			func(b, n, e float64) (string, bool) {
				return "≤ 0.5 × Node and ≤ 2.5 × limit", b <= n/2 && b <= 2.5*e
			}, "opendiff_nodecli_ms", "nodeatonce"},
		{fmt.Sprintf("openDiff round trip, %s realistic file, `serve --auto accept` against the Node sidecar routing to its editor (the row's baseline before issue 27), Go client", size(r.DiffBytes)), "serve_auto_ms", "ms", false, nil, "", ""},
		{name: "`serve --auto accept`: printed per proposal (summary and at most a screenful)", key: "serve_auto_printed_kib", unit: "KiB"},
		{name: "Server CPU per openDiff round trip (sidecar; echo), Go client", key: "opendiff_cpu_ms", unit: "CPU ms", echo: true},
		{name: "Server CPU per openDiff round trip (sidecar; echo), Node client", key: "opendiff_nodecli_cpu_ms", unit: "CPU ms", echo: true},
		{name: "`serve --auto accept` CPU per round trip (against the Node sidecar answering at once), Go client", key: "serve_auto_cpu_ms", unit: "CPU ms", echo: true, limitKey: "opendiff_cpu_ms", nodeTarget: "nodeatonce"},
		{name: "`serve --auto accept` CPU per round trip (against the Node sidecar answering at once), Node client", key: "serve_auto_nodecli_cpu_ms", unit: "CPU ms", echo: true, limitKey: "opendiff_nodecli_cpu_ms", nodeTarget: "nodeatonce"},
		{name: "Client CPU per openDiff round trip: the Go driver (client and editor)", key: "opendiff_client_cpu_ms", unit: "CPU ms", echo: true},
		{name: "Client CPU per openDiff round trip: the Node client", key: "opendiff_nodecli_client_cpu_ms", unit: "CPU ms", echo: true},
		{name: "openDiff round trip against a no-op relay: the same bytes WebSocket → `cat` over stdio pipes → WebSocket, Go client", key: "opendiff_ms", unit: "ms", echo: true, limitKey: "relay_ms"},
		{name: "openDiff round trip against a no-op relay, Node client", key: "opendiff_nodecli_ms", unit: "ms", echo: true, limitKey: "relay_nodecli_ms"},
		{"Selection fan-out to 16 clients, p50", "fan_p50_ms", "ms", false, nil, "", ""},
		{"Selection fan-out to 16 clients, p99", "fan_p99_ms", "ms", false,
			func(b, n, e float64) (string, bool) { return "≤ 0.5 × Node", b <= n/2 }, "", ""},
		{"Fan-out timed at the driver's reader goroutine instead of the socket, p50", "fan_read_p50_ms", "ms", false, nil, "", ""},
		{"Fan-out timed at the driver's reader goroutine instead of the socket, p99", "fan_read_p99_ms", "ms", false, nil, "", ""},
		{"Flood 1000 updates/s, 16 clients: sidecar CPU", "flood_cpu_pct", "% of a core", false,
			func(b, n, e float64) (string, bool) { return "< 5 %", b < 5 }, "", ""},
		{"Flood: updates actually sent by the driver", "flood_rate", "per s", false, nil, "", ""},
		{"Flood: last update reaches all 16 clients after", "flood_settle_ms", "ms", false,
			func(b, n, e float64) (string, bool) { return fmt.Sprintf("≤ %.0f ms (one debounce)", deb), b <= deb }, "", ""},
		{"Flood: clients holding the latest selection at the end", "flood_latest_clients", "of 16", false,
			func(b, n, e float64) (string, bool) { return "16", b == 16 }, "", ""},
		{"Flood: selection age when received, p99", "flood_p99_ms", "ms", false, nil, "", ""},
		{"Flood: selection_changed messages per client", "flood_msgs_per_client", "msgs", false, nil, "", ""},
		{"Idle clients connected (asked for 256)", "clients_accepted", "clients", false, nil, "", ""},
		{"Memory per idle client", "per_client_kib", "KiB", false, nil, "", ""},
		{"RSS with those clients", "many_clients_rss_mib", "MiB", false, nil, "", ""},
	}
}

// values are a row's medians: the bridge's (target), Node's and the echo limit's (NaN for a
// row without one).
func (r results) values(rw row, target string) (b, n, e float64) {
	nk := rw.key
	if k, ok := nodeKeys[rw.key]; ok {
		nk = k
	}
	e = math.NaN()
	if rw.echo {
		k := rw.key
		if rw.limitKey != "" {
			k = rw.limitKey
		}
		e = r.med("echo", k)
	}
	nt := "node"
	if rw.nodeTarget != "" {
		nt = rw.nodeTarget
	}
	return r.med(target, rw.key), r.med(nt, nk), e
}

// met is "yes" or "no" for a row with a goal, "" for one only reported.
func (rw row) met(b, n, e float64) (goal, met string) {
	if rw.goal == nil {
		return "reported", ""
	}
	goal, ok := rw.goal(b, n, e)
	if ok {
		return goal, "yes"
	}
	return goal, "no"
}

func (r results) table(cfg config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| Measurement | Unit | Bridge | Node baseline | Echo limit | Bridge / Node | Bridge / limit | Goal | Met |\n")
	fmt.Fprintf(&b, "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n")
	for _, rw := range r.rows(cfg) {
		bv, nv, ev := r.values(rw, "bridge")
		goal, met := rw.met(bv, nv, ev)
		er := "—"
		if rw.echo {
			er = ratio(bv, ev)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", rw.name, rw.unit, num(bv), num(nv), num(ev), ratio(bv, nv), er, goal, met)
	}
	fmt.Fprintf(&b, "\nMedians over %d repetition(s); within a repetition start-up is the median of %d starts, openDiff the median of %d round trips, fan-out percentiles are over %d updates × 16 clients.\n",
		r.Reps, cfg.startupSamples, cfg.diffIters, cfg.fanUpdates)
	if len(r.Runs["before"]) > 0 {
		b.WriteString(r.beforeTable(cfg))
	}
	return b.String()
}

// beforeTable sets the bridge against an earlier build of it (-before) measured in the same
// repetitions, in turn with the others, so both columns met the same machine state.
func (r results) beforeTable(cfg config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Before and after: %s\n\n", r.Before)
	fmt.Fprintf(&b, "| Measurement | Unit | Before | After | After / Before | Node baseline | Goal | Met before | Met after |\n")
	fmt.Fprintf(&b, "| --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- |\n")
	for _, rw := range r.rows(cfg) {
		av, nv, ev := r.values(rw, "bridge")
		bv, _, _ := r.values(rw, "before")
		goal, metAfter := rw.met(av, nv, ev)
		_, metBefore := rw.met(bv, nv, ev)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", rw.name, rw.unit, num(bv), num(av), ratio(av, bv), num(nv), goal, metBefore, metAfter)
	}
	fmt.Fprintf(&b, "\nSame repetitions as the table above: each ran the bridge, the earlier bridge, Node and the echo in turn.\n")
	return b.String()
}

func size(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
