package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"plain /path/to/file.go", "plain /path/to/file.go"},
		{"héllo wörld 日本", "héllo wörld 日本"},
		// issue 15 item 1: a CR and ESC[2K hide the line before them.
		{"evil();\r\x1b[2K+# formatting only", `evil();\r\x1b[2K+# formatting only`},
		{"\x1b[8mhidden", `\x1b[8mhidden`},
		{"\x1b]52;c;ZXZpbA==\x07", `\x1b]52;c;ZXZpbA==\x07`},
		{"\x1b]0;title\x1b\\", `\x1b]0;title\x1b\`},
		{"a\nb", `a\nb`},
		{"a\tb", `a\tb`},
		{"a\r\nb", `a\r\nb`},
		{"\x00\x01\x7f", `\x00\x01\x7f`},
		{"c1 \u0085 \u009b[31m", `c1 \u0085 \u009b[31m`},
		{"abc\u202egnp.exe", `abc\u202egnp.exe`},
		{"\u2066x\u2069 \u200e\u200f\u061c\u2028\u2029", `\u2066x\u2069 \u200e\u200f\u061c\u2028\u2029`},
		{"bad \xff\xfe utf8 \xc3", `bad \xff\xfe utf8 \xc3`},
		{"back\\slash", "back\\slash"},
	}
	for _, c := range cases {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"line1\nline2\n", "line1\nline2\n"},
		{"\tindented\n", "\tindented\n"},
		{"crlf\r\nfile\r\n", "crlf\r\nfile\r\n"},
		{"evil();\r\x1b[2K+# formatting only\n", "evil();\\r\\x1b[2K+# formatting only\n"},
		{"trailing cr\r", `trailing cr\r`},
		{"cr\r\r\n", "cr\\r\r\n"},
		{"\x1b[8m\n", "\\x1b[8m\n"},
		{"\u202e\n", "\\u202e\n"},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestCleanNoAlloc: text that needs nothing is returned as is.
func TestCleanNoAlloc(t *testing.T) {
	s := strings.Repeat("func main() { println(\"日本\") }\n", 10)
	if n := testing.AllocsPerRun(10, func() { _ = Text(s) }); n != 0 {
		t.Fatalf("Text of clean text allocates %v times", n)
	}
}

// checkSafe fails if out holds anything a terminal would act on.
func checkSafe(t *testing.T, in, out string, multi bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("escape(%q) = %q: invalid UTF-8", in, out)
	}
	for i, r := range out {
		if r == '\n' || r == '\t' {
			if multi {
				continue
			}
		}
		if r == '\r' && multi && i+1 < len(out) && out[i+1] == '\n' {
			continue
		}
		if unsafeRune(r) {
			t.Fatalf("escape(%q) = %q: raw %U at %d", in, out, r, i)
		}
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "a\r\nb", "\x1b[2K", "\u202e", "\xff", "\r\r\n", "\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkSafe(t, s, Line(s), false)
		checkSafe(t, s, Text(s), true)
		if clean(s, false) && Line(s) != s {
			t.Fatalf("clean %q changed", s)
		}
		// Only what was unsafe changes: removing the escapes' effect keeps the safe bytes in order.
		if utf8.ValidString(s) && !strings.ContainsAny(s, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f") {
			hasUnsafe := false
			for _, r := range s {
				hasUnsafe = hasUnsafe || unsafeRune(r)
			}
			if !hasUnsafe && Line(s) != s {
				t.Fatalf("safe %q changed to %q", s, Line(s))
			}
		}
	})
}
