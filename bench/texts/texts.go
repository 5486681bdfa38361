// Package texts makes the files the benchmarks carry (bench/driver, bench/nvimpeer, bench/vim's
// test/vim TestBench*): an old
// file and Claude's proposal for it, like real source. Every line is distinct, functions in Go,
// Python, JavaScript and C follow each other, and the proposal differs from the old file in a few
// hunks far apart (lines changed, inserted, deleted), so a line diff has real work to do and
// finds what a diff of an edited file finds. The text has what makes JSON encoding work: tabs,
// quotes, backslashes, `<`, `&` and non-ASCII characters. The same size and seed give the same
// texts (math/rand/v2's PCG), generated at run time.
package texts

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Pair is an old file and a proposal for it.
type Pair struct {
	Old, New string
	// Hunks is how many hunks a line diff of Old and New finds: they are at least minGap
	// unchanged lines apart, more than two diffs' context, so no hunk merges with the next.
	Hunks int
	// Mark is the byte offset in New of an ASCII letter on a changed line: setting it to
	// another ASCII letter gives a different proposal with the same hunks (the benchmarks make
	// every proposal differ so that nothing is answered from memory).
	Mark int
}

// minGap is the fewest unchanged lines between two hunks.
const minGap = 16

// Realistic returns a Pair of about n bytes each (Old at most n; New within a few hundred
// bytes of it) with hunks hunks, fewer when Old has too few lines for them to be minGap apart.
func Realistic(n, hunks int, seed uint64) Pair {
	g := &gen{rng: rand.New(rand.NewPCG(seed, 0x5eed)), k: 1}
	var old []string
	size := 0
	for size < n {
		for _, l := range g.block() {
			if size+len(l)+1 > n {
				size = n // full: stop at this line
				break
			}
			old = append(old, l)
			size += len(l) + 1
		}
	}
	// A hunk spans at most 6 old lines: spaced L/hunks apart, minGap stay between them.
	if most := max(len(old)/(minGap+8)-1, 0); hunks > most {
		hunks = most
	}
	p := Pair{Old: join(old), Hunks: hunks, Mark: -1}
	// Hunk j starts near line (j+0.5)·L/hunks: evenly spread, no two closer than minGap.
	var nw []string
	next := 0 // the first old line not yet copied
	off := 0  // bytes of New so far
	emit := func(l string) {
		nw = append(nw, l)
		off += len(l) + 1
	}
	for j := range hunks {
		at := (2*j + 1) * len(old) / (2 * hunks)
		for ; next < at; next++ {
			emit(old[next])
		}
		switch j % 4 {
		case 0: // change one to three lines
			for range 1 + g.rng.IntN(3) {
				l := g.changed(old[next])
				if p.Mark < 0 {
					p.Mark = off + strings.IndexFunc(l, isLetter)
				}
				emit(l)
				next++
			}
		case 1: // insert two to six lines
			for range 2 + g.rng.IntN(5) {
				emit(g.line())
			}
		case 2: // delete one to four lines
			next += 1 + g.rng.IntN(4)
		case 3: // replace two lines by four
			next += 2
			for range 4 {
				emit(g.line())
			}
		}
	}
	for ; next < len(old); next++ {
		emit(old[next])
	}
	p.New = join(nw)
	return p
}

// Repeated is the earlier benchmark payload: n bytes (rounded down to whole lines) of one
// 80-column line repeated. Every line is equal, which no real file is; it is kept as one row.
func Repeated(n int) string {
	line := strings.Repeat("x", 79) + "\n"
	return strings.Repeat(line, n/len(line))
}

func join(ls []string) string {
	size := 0
	for _, l := range ls {
		size += len(l) + 1
	}
	var b strings.Builder
	b.Grow(size)
	for _, l := range ls {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// gen makes lines; every line carries a number of its own (k, never reused), so no two lines
// are equal, as in a real file where names and literals differ from line to line.
type gen struct {
	rng *rand.Rand
	k   int
}

var (
	verbs = []string{"parse", "load", "build", "check", "merge", "fetch", "render", "encode", "decode", "split", "apply", "match", "resolve", "find", "write", "scan"}
	nouns = []string{"User", "Token", "Buffer", "Request", "Config", "Range", "Cursor", "Index", "Header", "Record", "Window", "Symbol", "Field", "Entry", "Node", "Path"}
	notes = []string{"größe passt", "→ next", "日本語のテキスト", "naïve café", "√2 ≈ 1.414", "Ünïcödé ok", "emoji ✓", "«quoted»"}
)

// num is a fresh number.
func (g *gen) num() string {
	g.k++
	return strconv.Itoa(g.k)
}

func (g *gen) name() string {
	return g.pick(verbs) + g.pick(nouns) + g.num()
}

func (g *gen) pick(xs []string) string { return xs[g.rng.IntN(len(xs))] }

// block is one function in one of the languages.
func (g *gen) block() []string {
	switch g.rng.IntN(4) {
	case 0:
		return g.goFunc()
	case 1:
		return g.pyFunc()
	case 2:
		return g.jsFunc()
	}
	return g.cFunc()
}

func (g *gen) body(n int, f func() string) []string {
	out := make([]string, 0, n)
	for range n {
		out = append(out, f())
	}
	return out
}

func (g *gen) goFunc() []string {
	fn := g.name()
	ls := []string{
		"// " + fn + " reads the " + strings.ToLower(g.pick(nouns)) + " and returns it (" + g.pick(notes) + ", case " + g.num() + ").",
		"func " + fn + "(ctx context.Context, in []byte) (*" + g.pick(nouns) + ", error) {",
	}
	ls = append(ls, g.body(3+g.rng.IntN(10), g.goLine)...)
	return append(ls, "\treturn &"+g.pick(nouns)+"{ID: "+g.num()+", Name: \"x\"}, nil", "} // "+fn)
}

func (g *gen) goLine() string {
	v := strings.ToLower(g.pick(nouns)) + g.num()
	switch g.rng.IntN(5) {
	case 0:
		return "\tif " + v + " := len(in); " + v + " < limit && !strings.HasPrefix(string(in), \"<tag a=\\\"" + g.num() + "\\\">\") {"
	case 1:
		return "\t\treturn nil, fmt.Errorf(\"" + g.name() + ": bad input %q & more\\n\", in)"
	case 2:
		return "\tfor i" + g.num() + " := range " + v + " { total += int(in[i]) * 31 } // " + g.pick(notes)
	case 3:
		return "\t" + v + " := map[string]int{\"a\": " + g.num() + ", \"b\\tc\": 2}"
	}
	return "\tlog.Printf(\"" + v + "=%d path=%s\\n\", " + v + ", `C:\\dir\\" + g.num() + "`)"
}

func (g *gen) pyFunc() []string {
	fn := strings.ToLower(g.pick(verbs)) + "_" + strings.ToLower(g.pick(nouns)) + "_" + g.num()
	ls := []string{
		"def " + fn + "(self, items, limit=" + g.num() + "):",
		"    \"\"\"Return the " + strings.ToLower(g.pick(nouns)) + "s of items (" + g.pick(notes) + ", case " + g.num() + ").\"\"\"",
	}
	ls = append(ls, g.body(3+g.rng.IntN(10), g.pyLine)...)
	return append(ls, "    return result_"+g.num()+"  # end of "+fn)
}

func (g *gen) pyLine() string {
	v := strings.ToLower(g.pick(nouns)) + "_" + g.num()
	switch g.rng.IntN(5) {
	case 0:
		return "    if " + v + " is not None and len(" + v + ") <= limit and 'x' in " + v + ":"
	case 1:
		return "        raise ValueError(f\"{" + v + "!r} & <" + g.num() + "> is not valid\\n\")"
	case 2:
		return "    " + v + " = {k: v for k, v in items if k != \"" + g.pick(notes) + "\"}"
	case 3:
		return "    for " + v + " in range(" + g.num() + "):  # \t" + g.pick(notes)
	}
	return "    print('" + v + "', r'\\d+\\s*', sep=\"\\t\")"
}

func (g *gen) jsFunc() []string {
	fn := g.name()
	ls := []string{
		"/** " + fn + ": " + g.pick(notes) + " */",
		"export async function " + fn + "(req, res) {",
	}
	ls = append(ls, g.body(3+g.rng.IntN(10), g.jsLine)...)
	return append(ls, "  return { ok: true, id: "+g.num()+" };", "} // "+fn)
}

func (g *gen) jsLine() string {
	v := strings.ToLower(g.pick(nouns)) + g.num()
	switch g.rng.IntN(5) {
	case 0:
		return "  const " + v + " = await fetch(`/api/" + g.num() + "?q=${encodeURIComponent(req.q)}&n=1`);"
	case 1:
		return "  if (" + v + ".length < 10 && " + v + " !== \"<none>\") throw new Error('bad \\'" + g.num() + "\\'');"
	case 2:
		return "  res.write(JSON.stringify({ " + v + ", note: \"" + g.pick(notes) + "\" }) + \"\\n\");"
	case 3:
		return "  for (const item of " + v + ") { sum += item.size ?? 0; } // " + g.num()
	}
	return "  console.log(\"" + v + "\\t%o\", req.headers['x-" + g.num() + "']);"
}

func (g *gen) cFunc() []string {
	fn := strings.ToLower(g.pick(verbs)) + "_" + strings.ToLower(g.pick(nouns)) + g.num()
	ls := []string{
		"/* " + fn + ": " + g.pick(notes) + " */",
		"static int " + fn + "(const char *in, size_t n) {",
	}
	ls = append(ls, g.body(3+g.rng.IntN(10), g.cLine)...)
	return append(ls, "\treturn "+g.num()+";", "} /* "+fn+" */")
}

func (g *gen) cLine() string {
	v := strings.ToLower(g.pick(nouns)) + g.num()
	switch g.rng.IntN(5) {
	case 0:
		return "\tif (n < " + g.num() + " && in[0] == '\\\\' && (flags & MASK) != 0) {"
	case 1:
		return "\t\tfprintf(stderr, \"" + v + ": \\\"%s\\\" <bad>\\n\", in);"
	case 2:
		return "\tfor (size_t " + v + " = 0; " + v + " < n; " + v + "++) sum += in[" + v + "];"
	case 3:
		return "\tchar " + v + "[] = \"" + g.pick(notes) + "\";"
	}
	return "\tint " + v + " = strtol(in, NULL, 10) & 0x" + strconv.FormatInt(int64(g.k), 16) + "; // " + g.num()
}

// line is a fresh line of code, for a hunk.
func (g *gen) line() string {
	switch g.rng.IntN(4) {
	case 0:
		return g.goLine()
	case 1:
		return g.pyLine()
	case 2:
		return g.jsLine()
	}
	return g.cLine()
}

// changed is old edited as Claude edits a line: its first number (each line has one of its
// own) becomes a fresh one and a comment is added, so most of the line stays and the line
// differs from every line of the old file.
func (g *gen) changed(old string) string {
	i := strings.IndexAny(old, "0123456789")
	j := i
	for j < len(old) && old[j] >= '0' && old[j] <= '9' {
		j++
	}
	return old[:i] + g.num() + old[j:] + " // edited"
}
