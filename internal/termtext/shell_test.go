package termtext

import (
	"os/exec"
	"strings"
	"testing"
)

// What sh makes of ShellQuote(s) is s, for words a shell would otherwise expand, split or glob.
func TestShellQuoteRoundTrip(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	words := []string{"", "plain", "/usr/bin/claude-ide-bridge", "it's", "a b", "$HOME", "`id`", "$(id)",
		`back\slash`, "*", "~", "~/x", "#not-a-comment", "a;b", "a&b", "a|b", "new\nline", "tab\there",
		"!bang", `"dq"`, "x=1", "127.0.0.1,localhost,::1", "%+@:,./-_", "'", "''", "日本 語", "[ab]?"}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = ShellQuote(w)
	}
	out, err := exec.Command(sh, "-c", `for a in `+strings.Join(quoted, " ")+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(got) != len(words) {
		t.Fatalf("sh saw %d words, want %d: %q", len(got), len(words), got)
	}
	for i, w := range words {
		if got[i] != w {
			t.Errorf("sh read ShellQuote(%q) = %s as %q", w, quoted[i], got[i])
		}
	}
}

// Safe words stay bare, so a command line stays readable; everything else is quoted.
func TestShellQuoteBareOnlyWhenSafe(t *testing.T) {
	for in, want := range map[string]string{
		"claude": "claude", "/a/b-c_d.e": "/a/b-c_d.e", "no_proxy=::1,localhost": "no_proxy=::1,localhost",
		"": "''", "a b": "'a b'", "~": "'~'", "it's": `'it'\''s'`, "$x": "'$x'",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
