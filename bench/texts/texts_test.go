package texts

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
)

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

func TestRealisticTexts(t *testing.T) {
	for _, tc := range []struct{ n, hunks int }{{64 << 10, 10}, {1 << 20, 10}, {10 << 20, 10}, {200 << 10, 3}} {
		p := Realistic(tc.n, tc.hunks, 1)
		// Sizes: Old at most n and within one line of it; New within a few hundred bytes.
		if len(p.Old) > tc.n || len(p.Old) < tc.n-300 {
			t.Errorf("n=%d: Old is %d bytes", tc.n, len(p.Old))
		}
		if d := len(p.New) - len(p.Old); d < -2000 || d > 2000 {
			t.Errorf("n=%d: New is %d bytes, Old %d", tc.n, len(p.New), len(p.Old))
		}
		for name, s := range map[string]string{"Old": p.Old, "New": p.New} {
			if !utf8.ValidString(s) || !strings.HasSuffix(s, "\n") {
				t.Errorf("n=%d: %s is not valid UTF-8 ending in a newline", tc.n, name)
			}
			seen := map[string]bool{}
			for i, l := range lines(s) {
				if seen[l] {
					t.Fatalf("n=%d: %s line %d repeats an earlier line: %q", tc.n, name, i+1, l)
				}
				seen[l] = true
			}
			// Source-like: every language and the characters JSON must escape are there.
			for _, want := range []string{"func ", "def ", "function ", "static int ", "\t", `"`, `\`, "<", "&", "日本語"} {
				if !strings.Contains(s, want) {
					t.Errorf("n=%d: %s has no %q", tc.n, name, want)
				}
			}
		}
		if p.Hunks != tc.hunks {
			t.Errorf("n=%d: Hunks = %d, asked for %d", tc.n, p.Hunks, tc.hunks)
		}
		if got := countHunks(p.Old, p.New); got != p.Hunks {
			t.Errorf("n=%d: a line diff finds %d hunks, Hunks says %d", tc.n, got, p.Hunks)
		}
		// Mark: a letter on a changed line; another letter there keeps the hunks.
		if c := p.New[p.Mark]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			t.Fatalf("n=%d: New[Mark] = %q, not an ASCII letter", tc.n, c)
		}
		if tc.n <= 1<<20 { // udiff on 10 MiB takes seconds: the cheap count above covers it
			b := []byte(p.New)
			b[p.Mark] = 'Q'
			if p.New[p.Mark] == 'Q' {
				b[p.Mark] = 'Z'
			}
			edits := udiff.Lines(p.Old, string(b))
			u, err := udiff.ToUnifiedDiff("old", "new", p.Old, edits, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(u.Hunks) != p.Hunks {
				t.Errorf("n=%d: udiff finds %d hunks with the mark changed, want %d", tc.n, len(u.Hunks), p.Hunks)
			}
		}
	}
}

// countHunks counts the runs of lines that differ, for texts whose lines are each distinct and
// whose common lines keep their order (what Realistic makes; the test above checks the first).
func countHunks(old, new string) int {
	a, b := lines(old), lines(new)
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, l := range a {
		inA[l] = true
	}
	for _, l := range b {
		inB[l] = true
	}
	n, i, j := 0, 0, 0
	for i < len(a) || j < len(b) {
		if i < len(a) && j < len(b) && a[i] == b[j] {
			i, j = i+1, j+1
			continue
		}
		n++
		for i < len(a) && !inB[a[i]] {
			i++
		}
		for j < len(b) && !inA[b[j]] {
			j++
		}
	}
	return n
}

func TestRealisticIsDeterministic(t *testing.T) {
	a, b, c := Realistic(256<<10, 5, 7), Realistic(256<<10, 5, 7), Realistic(256<<10, 5, 8)
	if a != b {
		t.Error("the same size and seed gave different texts")
	}
	if a.Old == c.Old {
		t.Error("another seed gave the same text")
	}
}

func TestRealisticSmall(t *testing.T) {
	p := Realistic(2<<10, 10, 1) // too few lines for 10 hunks minGap apart
	if p.Hunks >= 10 || countHunks(p.Old, p.New) != p.Hunks {
		t.Errorf("2 KiB: Hunks %d, found %d", p.Hunks, countHunks(p.Old, p.New))
	}
}

func TestRepeated(t *testing.T) {
	s := Repeated(1 << 20)
	if len(s) > 1<<20 || len(s) < 1<<20-80 || strings.Count(s, "\n") != len(s)/80 {
		t.Errorf("Repeated: %d bytes, %d lines", len(s), strings.Count(s, "\n"))
	}
}

func BenchmarkRealistic10MiB(b *testing.B) {
	for b.Loop() {
		Realistic(10<<20, 10, 1)
	}
}
