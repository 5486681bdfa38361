package terminal

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// clean makes one line of untrusted text (a file's, Claude's) safe to print on a terminal:
// control characters (C0 but the tab, DEL, C1, which start escape sequences and could move the
// cursor, retitle the window or fake a prompt) and invalid UTF-8 are shown as \xNN or \u{NNNN}.
// TODO(sec): replace with the shared escaping package once it is on main.
func clean(s string) string {
	safe := true
	for _, r := range s {
		if r == utf8.RuneError || (r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r))) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[s[i]>>4])
			b.WriteByte("0123456789abcdef"[s[i]&15])
		case r != '\t' && (r < 0x20 || r == 0x7f):
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		case (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r):
			b.WriteString(`\u{`)
			b.WriteString(strings.ToUpper(strconvHex(int(r))))
			b.WriteByte('}')
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func strconvHex(n int) string {
	const digits = "0123456789abcdef"
	if n == 0 {
		return "0"
	}
	var buf [8]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = digits[n&15]
		n >>= 4
	}
	return string(buf[i:])
}
