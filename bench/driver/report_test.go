package main

import (
	"strings"
	"testing"
)

// TestBeforeTable: with -before, each row sets the earlier build against the bridge, in that
// order, with after/before and each column's own verdict against the goal.
func TestBeforeTable(t *testing.T) {
	r := results{Reps: 1, DiffBytes: 10 << 20, Debounce: 50, Before: "30e4735", Runs: map[string][]metrics{
		"bridge": {{"opendiff_ms": 100, "fan_p99_ms": 3}},
		"before": {{"opendiff_ms": 200, "fan_p99_ms": 1}},
		"node":   {{"opendiff_ms": 150, "fan_p99_ms": 4}},
		"echo":   {{"opendiff_ms": 60}},
	}}
	md := r.table(config{diffIters: 7, fanUpdates: 200})
	_, after, ok := strings.Cut(md, "### Before and after: 30e4735")
	if !ok {
		t.Fatalf("no before/after table:\n%s", md)
	}
	for _, want := range []string{
		// openDiff: before 200 > Node 150 misses "≤ 1.0 × Node", after 100 meets it.
		"| ms | 200 | 100 | 0.50 | 150 | ≤ 1.0 × Node and ≤ 2.0 × limit | no | yes |",
		// fan-out p99: before 1 ≤ 4/2 meets it, after 3 does not.
		"| ms | 1.00 | 3.00 | 3.00 | 4.00 | ≤ 0.5 × Node | yes | no |",
	} {
		if !strings.Contains(after, want) {
			t.Errorf("before/after table lacks %q:\n%s", want, after)
		}
	}
	delete(r.Runs, "before")
	if strings.Contains(r.table(config{}), "### Before") {
		t.Error("a run without -before has a before/after table")
	}
}

// TestClientRowsCompareLikeWithLike: each client's `serve --auto accept` row is set against the
// Node sidecar answering at once and the echo, both timed by the same client, never the other
// client's numbers; the row against the routing sidecar stays beside it, reported.
func TestClientRowsCompareLikeWithLike(t *testing.T) {
	r := results{Reps: 1, DiffBytes: 10 << 20, Debounce: 50, Runs: map[string][]metrics{
		"bridge":     {{"serve_auto_ms": 100, "serve_auto_nodecli_ms": 90}},
		"node":       {{"opendiff_ms": 400, "opendiff_nodecli_ms": 300}},
		"nodeatonce": {{"opendiff_ms": 190, "opendiff_nodecli_ms": 200}},
		"echo":       {{"opendiff_ms": 50, "opendiff_nodecli_ms": 30}},
	}}
	md := r.table(config{diffIters: 7, fanUpdates: 200})
	for _, want := range []string{
		"(no editor either), Go client | ms | 100 | 190 | 50.0 | 0.53 | 2.00 | ≤ 0.5 × Node and ≤ 2.5 × limit | no |",
		"answering at once, Node client (`ws`) | ms | 90.0 | 200 | 30.0 | 0.45 | 3.00 | ≤ 0.5 × Node and ≤ 2.5 × limit | no |",
		"routing to its editor (the row's baseline before issue 27), Go client | ms | 100 | 400 | — | 0.25 | — | reported |  |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}
