package jsonrpc

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestParallelCheckAgrees: a big string checked in pieces (parallel.go) gets exactly the answer
// of checking it in one piece, with a fault of each kind placed on and around every cut, at the
// start and at the end, and with the string ending early.
func TestParallelCheckAgrees(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: big strings are checked in one piece")
	}
	line := `\tif x := f(\"héllo\\n\", i); x \u003c limit { // → 日本\n` // escapes and UTF-8 throughout
	lit := []byte(`"` + strings.Repeat(line, parallelMin*5/4/len(line)) + `"` + `,"next":1}`)
	var cuts []int // as checkStringParallel cuts it
	n := min(runtime.NumCPU(), 4, len(lit)/(parallelMin/2))
	for k := 1; k < n; k++ {
		if at, ok := cutAt(lit, 1+len(lit)*k/n); ok {
			cuts = append(cuts, at)
		}
	}
	if len(cuts) == 0 {
		t.Fatal("no place to cut the text")
	}
	faults := []string{"\x01", `\x`, `\u00g9`, "\xff", "\xe6\x97", `"`, `\`, "\xc3", `\"`, `\\`, "é"}
	var places []int
	for _, c := range cuts {
		for d := -3; d <= 3; d++ {
			places = append(places, c+d)
		}
	}
	places = append(places, 1, 2, len(lit)-12, len(lit)-13)
	for _, f := range faults {
		for _, at := range places {
			d := bytes.Clone(lit)
			copy(d[at:], f)
			wantEnd, wantErr := checkString(d, 0)
			gotEnd, gotErr := checkStringParallel(d, 0)
			if gotEnd != wantEnd || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("%q at %d (cuts %v): in pieces %d, %v; in one %d, %v", f, at, cuts, gotEnd, gotErr, wantEnd, wantErr)
			}
		}
	}
	if end, err := checkStringParallel(lit, 0); err != nil || end != bytes.LastIndexByte(lit, ',') {
		t.Fatalf("the text itself: %d, %v", end, err)
	}
}

// TestCutAtIsABoundary: a cut never falls inside an escape or a UTF-8 character.
func TestCutAtIsABoundary(t *testing.T) {
	d := []byte(strings.Repeat(`ab\u0041\\\"é→`, 1000) + strings.Repeat("x", 100))
	for p := 0; p < len(d)-200; p += 7 {
		at, ok := cutAt(d, p)
		if !ok {
			continue
		}
		if at < p || d[at-1] >= 0x80 || bytes.IndexByte(d[at-6:at], '\\') >= 0 {
			t.Fatalf("cutAt(%d) = %d: %q|%q", p, at, d[at-8:at], d[at:at+4])
		}
	}
}
