package ide

import "testing"

// The one position converter, both ways, against counts made by hand: an astral character (two
// UTF-16 units, four bytes, one rune), a combining mark (its own unit everywhere), CRLF, an
// invalid byte, and positions past the end or inside a character.
func TestPositionConverter(t *testing.T) {
	// "a😀e\u0301b" = a, U+1F600, e, COMBINING ACUTE, b; then \r\n.
	line := "a\U0001F600e\u0301b\xffz\r\n"
	type cut struct{ bytes, u8, u16, u32 int }
	cuts := []cut{
		{0, 0, 0, 0},   // before a
		{1, 1, 1, 1},   // before 😀
		{5, 5, 3, 2},   // before e
		{6, 6, 4, 3},   // before the combining mark
		{8, 8, 5, 4},   // before b
		{9, 9, 6, 5},   // before the invalid byte
		{10, 10, 7, 6}, // before z
		{11, 11, 8, 7}, // the end, before \r\n
	}
	for _, c := range cuts {
		for enc, n := range map[Encoding]int{UTF8: c.u8, UTF16: c.u16, UTF32: c.u32, "": c.u16} {
			if got := Units(line[:c.bytes], enc); got != n {
				t.Errorf("Units(%q, %q) = %d, want %d", line[:c.bytes], enc, got, n)
			}
			if got := ByteOffset(line, n, enc); got != c.bytes {
				t.Errorf("ByteOffset(%d, %q) = %d, want %d", n, enc, got, c.bytes)
			}
		}
	}
	for _, c := range []struct {
		n    int
		enc  Encoding
		want int
	}{
		{2, UTF16, 1},   // between the halves of 😀's surrogate pair: its start
		{3, UTF8, 1},    // inside 😀's four bytes: its start
		{99, UTF16, 11}, // past the end: the end, not past \r\n
		{9, UTF16, 11},  // one past the end: at the \r, which is not the line's
		{-1, UTF8, 0},
	} {
		if got := ByteOffset(line, c.n, c.enc); got != c.want {
			t.Errorf("ByteOffset(%d, %q) = %d, want %d", c.n, c.enc, got, c.want)
		}
	}
	for _, l := range []string{"x\n", "x\r", "x"} {
		if got := ByteOffset(l, 5, UTF16); got != 1 {
			t.Errorf("ByteOffset(%q, past the end) = %d, want 1", l, got)
		}
	}
}

// Every rune boundary of a mixed line round-trips in every encoding.
func TestPositionRoundTrip(t *testing.T) {
	line := "日本\U0001F600x\u0301\U00010348y"
	for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
		check := func(i int) {
			if got := ByteOffset(line, Units(line[:i], enc), enc); got != i {
				t.Errorf("%s: ByteOffset(Units(line[:%d])) = %d", enc, i, got)
			}
		}
		for i := range line { // each rune's start
			check(i)
		}
		check(len(line))
	}
}

// PositionAt counts lines by \n (a \r before it is the line's end, not a character after it).
func TestPositionAtCRLF(t *testing.T) {
	content := "a\U0001F600\r\nb\U0001F600c"
	at := func(off int, enc Encoding) Position { return PositionAt(content, off, enc) }
	if p := at(5, UTF16); p != (Position{Line: 0, Character: 3}) {
		t.Errorf("before \\r: %+v", p)
	}
	if p := at(len(content)-1, UTF16); p != (Position{Line: 1, Character: 3}) {
		t.Errorf("before c in UTF-16: %+v", p)
	}
	if p := at(len(content)-1, UTF8); p != (Position{Line: 1, Character: 5}) {
		t.Errorf("before c in UTF-8: %+v", p)
	}
}

// Truncate never cuts a character in two: a cut inside "é" (2 bytes) or "😀" (4) backs up to its
// start.
func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{{"abc", 5, "abc"}, {"abc", 2, "ab"}, {"aé", 2, "a"}, {"aé", 3, "aé"}, {"😀b", 3, ""}, {"😀b", 4, "😀"}, {"ab", 0, ""}} {
		if got := Truncate(c.s, c.n); got != c.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
