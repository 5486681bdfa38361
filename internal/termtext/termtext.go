// Package termtext makes untrusted text safe to print on a terminal.
//
// Text that comes from a client, an editor or a file (a proposal, a path, a lock file's
// contents, a log line with a client-supplied string) must never reach a terminal raw: a
// carriage return or an ESC sequence can hide what the user is asked to approve (ESC[2K erases a
// line, ESC[8m blanks it, OSC 52 writes the clipboard, OSC 0 the window title), a newline in a
// path can fake the bridge's own output, and a bidi override (U+202E) can reorder what is shown.
// The functions here replace every such character with a visible escape instead of dropping it,
// so the reader sees that something was there:
//
//   - C0 controls (U+0000-U+001F) and DEL as \xNN (ESC is \x1b, CR is \r, newline \n, tab \t);
//   - C1 controls (U+0080-U+009F) as \u0085 and the like;
//   - bidi overrides, embeddings, isolates and marks (U+202A-U+202E, U+2066-U+2069, U+200E,
//     U+200F, U+061C) and the line/paragraph separators U+2028, U+2029 as \u202e and the like;
//   - each byte of invalid UTF-8 as \xNN.
//
// A backslash is left as it is: source code is full of them and doubling every one would make the
// review unreadable. So a literal `\x1b` in the text and an escaped ESC print alike; that is
// ambiguous to read but harmless, since neither does anything to the terminal.
//
// Line chooses for single-line fields (paths, names, log fields): everything above is escaped,
// newline and tab included, so the value stays on its one line. Text chooses for multi-line text
// shown as text (a proposed file): newline and tab are kept (tab is indentation, and it only
// moves the cursor right to the next stop, it cannot overwrite anything), and a CR directly
// before a newline is kept too (a CRLF file): it moves the cursor to column 0 of a line that is
// then ended, so nothing printed can be overwritten. Every other CR is escaped.
//
// All functions are pure and safe for concurrent use; text that needs no escape is returned as
// it is, without allocating.
package termtext

import (
	"strings"
	"unicode/utf8"
)

// Line escapes s for a single-line field: every control character (newline and tab included),
// every bidi control and every invalid UTF-8 byte is shown as a visible escape.
func Line(s string) string { return escape(s, false) }

// Text escapes s for multi-line text: as Line, but newline, tab and the CR of a CRLF are kept.
func Text(s string) string { return escape(s, true) }

const hexdigits = "0123456789abcdef"

// unsafeRune reports whether r must be escaped in every mode.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// keep reports whether the character at s[i] (an ASCII control) may stay raw in multi-line mode.
func keep(s string, i int, multi bool) bool {
	if !multi {
		return false
	}
	switch s[i] {
	case '\n', '\t':
		return true
	case '\r':
		return i+1 < len(s) && s[i+1] == '\n'
	}
	return false
}

func clean(s string, multi bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		if c < 0x80 {
			if !keep(s, i, multi) {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafeRune(r) {
			return false
		}
		i += n
	}
	return true
}

func escape(s string, multi bool) string {
	if clean(s, multi) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if (c >= 0x20 && c < 0x7f) || keep(s, i, multi) {
				b.WriteByte(c)
			} else {
				switch c {
				case '\n':
					b.WriteString(`\n`)
				case '\r':
					b.WriteString(`\r`)
				case '\t':
					b.WriteString(`\t`)
				default:
					b.WriteString(`\x`)
					b.WriteByte(hexdigits[c>>4])
					b.WriteByte(hexdigits[c&0xf])
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteByte(hexdigits[c>>4])
			b.WriteByte(hexdigits[c&0xf])
		case unsafeRune(r):
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hexdigits[(r>>uint(shift))&0xf])
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
