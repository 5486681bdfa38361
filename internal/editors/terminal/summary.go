package terminal

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// maxLineDiff bounds the changed region (old and new together, after the common first and last
// lines are set aside) that is diffed line by line. Over it the region is shown as replaced:
// go-udiff takes ~0.4 s on a 10 MiB region, and a person would not read it line by line either.
const maxLineDiff = 1 << 20

// proposal is the diff of one proposal, computed once for the summary, the pager and the
// screenful of --auto.
type proposal struct {
	path           string
	from, to       string // the diff's header names (review.Labels)
	hunks          []*udiff.Hunk
	added, deleted int
	// exact is false when the changed region was over maxLineDiff and is shown as replaced
	// (its old lines deleted, its new lines added): the counts are then an upper bound.
	exact bool
	// For a replaced region: its text on both sides and its first line (1-based). No hunk
	// structures are built for it: --auto shows a screenful of a 10 MiB proposal, and building
	// 130,000 lines competed for the one P with the answer being written.
	repOld, repNew string
	repLine        int
}

// diffProposal diffs old against new by lines. The common leading and trailing lines are found
// first (a memory compare), so that an edit in a big file only diffs the lines around it.
func diffProposal(path, old, new string) proposal {
	p := proposal{path: path, from: path, to: path, exact: true}
	pre := commonPrefix(old, new)
	pre = strings.LastIndexByte(old[:pre], '\n') + 1 // whole lines only
	suf := commonSuffix(old[pre:], new[pre:])
	// The common tail must start a line in both (or be empty).
	for suf > 0 && !lineStart(old, len(old)-suf) {
		i := strings.IndexByte(old[len(old)-suf:], '\n')
		if i < 0 {
			suf = 0
			break
		}
		suf -= i + 1
	}
	oldMid, newMid := old[pre:len(old)-suf], new[pre:len(new)-suf]
	var edits []udiff.Edit
	switch {
	case oldMid == "" && newMid == "":
	case len(oldMid)+len(newMid) > maxLineDiff:
		p.exact = oldMid == "" || newMid == ""
		p.repOld, p.repNew = oldMid, newMid
		p.repLine = strings.Count(old[:pre], "\n") + 1
		p.deleted, p.added = countLines(oldMid), countLines(newMid)
		return p
	case oldMid == "" || newMid == "":
		edits = []udiff.Edit{{Start: pre, End: len(old) - suf, New: newMid}}
	default:
		for _, e := range udiff.Lines(oldMid, newMid) {
			e.Start += pre
			e.End += pre
			edits = append(edits, e)
		}
	}
	if len(edits) == 0 {
		return p
	}
	u, err := udiff.ToUnifiedDiff("a"+path, "b"+path, old, edits, udiff.DefaultContextLines)
	if err != nil { // edits out of order or range: cannot happen with the edits above
		return p
	}
	p.hunks = u.Hunks
	p.added, p.deleted = review.Counts(u.Hunks)
	return p
}

// countLines counts lines, a last one without a line break included.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// hunkCount is how many hunks the diff shows.
func (p proposal) hunkCount() int {
	if p.repOld != "" || p.repNew != "" {
		return 1
	}
	return len(p.hunks)
}

func lineStart(s string, i int) bool { return i == 0 || s[i-1] == '\n' }

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	// Compare in blocks: string equality is a memcmp, far faster than a byte loop.
	i := 0
	for step := 4096; i+step <= n && a[i:i+step] == b[i:i+step]; i += step {
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

func commonSuffix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for step := 4096; i+step <= n && a[len(a)-i-step:len(a)-i] == b[len(b)-i-step:len(b)-i]; i += step {
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// Summary is the one line shown before the question: "+120 -7 in 3 hunks".
func (p proposal) Summary() string {
	h := p.hunkCount()
	if h == 0 {
		return "no changes"
	}
	s := fmt.Sprintf("+%d -%d in %d %s", p.added, p.deleted, h, plural(h, "hunk", "hunks"))
	if !p.exact {
		s += " (over 1 MiB changed: shown as replaced, not diffed line by line)"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// lines returns how many lines render writes (headers included).
func (p proposal) lines() int {
	if p.hunkCount() == 0 {
		return 0
	}
	n := 2
	if p.hunks == nil { // a replaced region
		n += 1 + p.added + p.deleted
		for _, side := range []string{p.repOld, p.repNew} {
			if side != "" && !strings.HasSuffix(side, "\n") {
				n++
			}
		}
		return n
	}
	for _, h := range p.hunks {
		n += 1 + len(h.Lines)
		for _, l := range h.Lines {
			if !strings.HasSuffix(l.Content, "\n") {
				n++ // "\ No newline at end of file"
			}
		}
	}
	return n
}

// render writes the unified diff, at most max lines of it (max <= 0: all), painted with paint and
// every line of the files made safe for a terminal with clean. It returns how many lines it left
// out. Output is buffered: one write per 64 KiB, not one per line.
func (p proposal) render(w io.Writer, max int, paint func(code, s string) string) (left int) {
	if p.hunkCount() == 0 {
		return 0
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	total, n := p.lines(), 0
	put := func(code, s string) bool {
		if max > 0 && n >= max {
			return false
		}
		n++
		bw.WriteString(paint(code, s))
		bw.WriteByte('\n')
		return true
	}
	if !put("1", "--- "+termtext.Line(p.from)) || !put("1", "+++ "+termtext.Line(p.to)) {
		return total - n
	}
	line := func(code, mark, content string, nl bool) bool {
		if nl {
			content = strings.TrimSuffix(content, "\r") // CRLF: the line break, not text to show
		}
		ok := put(code, mark+termtext.Text(content))
		if ok && !nl {
			ok = put("", `\ No newline at end of file`)
		}
		return ok
	}
	if p.hunks == nil { // a replaced region, walked line by line without building the lines
		from, to := p.repLine, p.repLine
		if p.deleted == 0 {
			from--
		}
		if p.added == 0 {
			to--
		}
		if !put("36", fmt.Sprintf("@@ -%d,%d +%d,%d @@", from, p.deleted, to, p.added)) {
			return total - n
		}
		for _, side := range []struct{ code, mark, text string }{{"31", "-", p.repOld}, {"32", "+", p.repNew}} {
			for rest := side.text; rest != ""; {
				content, after, nl := strings.Cut(rest, "\n")
				rest = after
				if !line(side.code, side.mark, content, nl) {
					return total - n
				}
			}
		}
		return 0
	}
	for _, h := range p.hunks {
		from, to := 0, 0
		for _, l := range h.Lines {
			if l.Kind != udiff.Insert {
				from++
			}
			if l.Kind != udiff.Delete {
				to++
			}
		}
		fromStart, toStart := h.FromLine, h.ToLine
		if from == 0 {
			fromStart--
		}
		if to == 0 {
			toStart--
		}
		if !put("36", fmt.Sprintf("@@ -%d,%d +%d,%d @@", fromStart, from, toStart, to)) {
			return total - n
		}
		for _, l := range h.Lines {
			code, mark := "", " "
			switch l.Kind {
			case udiff.Insert:
				code, mark = "32", "+"
			case udiff.Delete:
				code, mark = "31", "-"
			}
			text, nl := strings.CutSuffix(l.Content, "\n")
			if !line(code, mark, text, nl) {
				return total - n
			}
		}
	}
	return 0
}
