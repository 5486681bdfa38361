package terminal

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

func noPaint(_, s string) string { return s }

func numbered(n int, f func(i int) string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(f(i))
	}
	return b.String()
}

// The summary counts what the diff shows: issue 18's "+120 -7 in 3 hunks".
func TestSummaryCounts(t *testing.T) {
	old := numbered(300, func(i int) string { return fmt.Sprintf("line %d\n", i) })
	// Three separate places: 7 lines deleted near the top, 100 added in the middle, 20 changed
	// (20 deleted, 20 added) near the end: +120 -27... keep it to the numbers:
	new := strings.Replace(old, numbered(7, func(i int) string { return fmt.Sprintf("line %d\n", 10+i) }), "", 1)
	new = strings.Replace(new, "line 150\n", "line 150\n"+numbered(100, func(i int) string { return fmt.Sprintf("new %d\n", i) }), 1)
	new = strings.Replace(new, "line 280\n", "line 280\n"+numbered(20, func(i int) string { return fmt.Sprintf("more %d\n", i) }), 1)
	p := diffProposal("/w/f.go", old, new)
	if got := p.Summary(); got != "+120 -7 in 3 hunks" {
		t.Fatalf("Summary() = %q", got)
	}
	if got := diffProposal("/w/f.go", old, old).Summary(); got != "no changes" {
		t.Fatalf("same text: %q", got)
	}
	if got := diffProposal("/w/f.go", "a\n", "a\nb\n").Summary(); got != "+1 -0 in 1 hunk" {
		t.Fatalf("one line: %q", got)
	}
}

// Setting the common lines aside changes nothing in what is shown: the rendering equals
// go-udiff's own unified diff of the whole texts (labels aside), on edits at the start, the
// middle, the end, without a final newline, and on texts sharing only a partial line.
func TestDiffMatchesUdiff(t *testing.T) {
	base := numbered(40, func(i int) string { return fmt.Sprintf("l%d\n", i) })
	for name, tc := range map[string][2]string{
		"middle":          {base, strings.Replace(base, "l20\n", "L20\nextra\n", 1)},
		"start":           {base, "new\n" + base[3:]},
		"end":             {base, base + "tail"},
		"no final eol":    {base + "x", base + "y"},
		"partial line":    {"abc\ndef\n", "abX\ndef\n"},
		"empty old":       {"", "a\nb\n"},
		"empty new":       {"a\nb\n", ""},
		"repeated blocks": {"a\nb\na\nb\na\n", "a\nb\nc\na\nb\na\n"},
	} {
		var got bytes.Buffer
		diffProposal("/f", tc[0], tc[1]).render(&got, 0, noPaint)
		want := udiff.Unified("/f", "/f", tc[0], tc[1])
		if got.String() != want {
			t.Errorf("%s:\n got:\n%s\nwant:\n%s", name, got.String(), want)
		}
	}
}

// A changed region over maxLineDiff is not diffed line by line (that took ~0.4 s for 10 MiB):
// shown as replaced, and said so.
func TestHugeRegionShownAsReplaced(t *testing.T) {
	old := "head\n" + strings.Repeat("a\n", maxLineDiff/4) + "tail\n"
	new := "head\n" + strings.Repeat("b\n", maxLineDiff/4+10) + "tail\n"
	p := diffProposal("/f", old, new)
	if p.exact || p.added != maxLineDiff/4+10 || p.deleted != maxLineDiff/4 || p.hunkCount() != 1 {
		t.Fatalf("exact %v, +%d -%d in %d", p.exact, p.added, p.deleted, p.hunkCount())
	}
	// Shown as replaced, it renders as go-udiff renders that same replacement (less context).
	var got bytes.Buffer
	p.render(&got, 0, noPaint)
	want, _ := udiff.ToUnified("/f", "/f", old, []udiff.Edit{{Start: 5, End: len(old) - 5, New: new[5 : len(new)-5]}}, 0)
	if got.String() != want {
		t.Fatalf("replaced region rendered differently from go-udiff (%d vs %d bytes)", got.Len(), len(want))
	}
	if p.lines() != strings.Count(want, "\n") {
		t.Fatalf("lines() = %d, rendered %d", p.lines(), strings.Count(want, "\n"))
	}
	if !strings.Contains(p.Summary(), "shown as replaced") {
		t.Fatalf("Summary() = %q", p.Summary())
	}
	// A pure insertion is exact however big.
	if p := diffProposal("/f", "x\n", "x\n"+strings.Repeat("y\n", maxLineDiff)); !p.exact || p.added != maxLineDiff {
		t.Fatalf("insertion: exact %v +%d", p.exact, p.added)
	}
}

// render stops at max lines and says how many it left out.
func TestRenderScreenful(t *testing.T) {
	p := diffProposal("/f", "", numbered(100, func(i int) string { return fmt.Sprintf("%d\n", i) }))
	var b bytes.Buffer
	left := p.render(&b, 10, noPaint)
	if strings.Count(b.String(), "\n") != 10 || left != p.lines()-10 || left != 93 {
		t.Fatalf("rendered %d lines, left %d of %d:\n%s", strings.Count(b.String(), "\n"), left, p.lines(), b.String())
	}
}

// Untrusted text never reaches the terminal raw: escape sequences in the file or the proposal
// (and in the path) are shown as text.
func TestRenderEscapesControlCharacters(t *testing.T) {
	p := diffProposal("/w/\x1b]0;pwned\x07.go", "ok\n", "ok\n\x1b[2J\x1b[31mfake prompt\x9b\u009b\u202e\r\n")
	var b bytes.Buffer
	p.render(&b, 0, noPaint)
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07\u009b\u202e") || strings.Contains(out, "\x9b") || strings.Contains(out, "\r") {
		t.Fatalf("raw control characters in %q", out)
	}
	if !strings.Contains(out, `+\x1b[2J\x1b[31mfake prompt\x9b\u009b\u202e`) || !strings.Contains(out, `/w/\x1b]0;pwned\x07.go`) {
		t.Fatalf("not shown as text: %q", out)
	}
}

// BenchmarkAutoSummary10MiB is what --auto does after answering the bench's proposal (a one-line
// file replaced by 10 MiB): diff, summary, a screenful. Building go-udiff's hunks for it instead
// took 2.6 s and 77 MB per proposal on this (loaded) machine; walking the region, ~12 ms.
func BenchmarkAutoSummary10MiB(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 10<<20; i++ {
		fmt.Fprintf(&sb, "\tif x%d := f(\"héllo wörld ✓\\n\", %d); x%d < limit && ok {\n\t}\n", i, i, i)
	}
	new := sb.String()
	b.ReportAllocs()
	for b.Loop() {
		p := diffProposal("/w/bench.txt", "package bench\n", new)
		_ = p.Summary()
		p.render(io.Discard, 20, noPaint)
	}
}

// Issue 39 item 10: "diff headers read `a/<absolute path>`": "--- a" + "/w/f.go" read as the
// relative path a/w/f.go. The headers name the file by its path, as `review` prints them.
func TestDiffHeadersNameTheFile(t *testing.T) {
	var b bytes.Buffer
	diffProposal("/w/f.go", "a\n", "b\n").render(&b, 0, noPaint)
	if !strings.HasPrefix(b.String(), "--- /w/f.go\n+++ /w/f.go\n@@ ") {
		t.Fatalf("headers:\n%s", b.String())
	}
}
