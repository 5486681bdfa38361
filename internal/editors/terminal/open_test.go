package terminal

import (
	"reflect"
	"testing"
)

func TestParseOpenCmd(t *testing.T) {
	for _, tc := range []struct {
		tmpl string
		want []string
	}{
		{"hx {file}:{line}", []string{"hx", "{file}:{line}"}},
		{"vim", []string{"vim", "{file}"}},
		{`code  --goto   "{file}:{line}:{column}"`, []string{"code", "--goto", "{file}:{line}:{column}"}},
		{`'/opt/My Editor/bin/ed' -n 'a b' "c \" d" e\ f {file}`, []string{"/opt/My Editor/bin/ed", "-n", "a b", `c " d`, "e f", "{file}"}},
		{`ed '$HOME' ~ *`, []string{"ed", "$HOME", "~", "*", "{file}"}}, // nothing expanded
		{`ed ''`, []string{"ed", "", "{file}"}},
	} {
		o, err := ParseOpenCmd(tc.tmpl)
		if err != nil || !reflect.DeepEqual(o.words, tc.want) {
			t.Errorf("ParseOpenCmd(%q) = %q, %v; want %q", tc.tmpl, o.wordsOrNil(), err, tc.want)
		}
	}
	for _, bad := range []string{"", "   ", `hx 'open`, `hx "open`, `hx \`, "{file} x"} {
		if _, err := ParseOpenCmd(bad); err == nil {
			t.Errorf("ParseOpenCmd(%q): no error", bad)
		}
	}
}

func (o *Opener) wordsOrNil() []string {
	if o == nil {
		return nil
	}
	return o.words
}

// The path from Claude is untrusted: it is one argument whatever it holds, and substituted once.
func TestOpenerArgvNeverSplitsThePath(t *testing.T) {
	o, _ := ParseOpenCmd("hx {file}:{line} --col={column}")
	hostile := "/w/a b;$(touch pwned)`x`'\"{line}\n.go"
	argv, err := o.Argv(hostile, 12, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"hx", hostile + ":12", "--col=3"}
	if !reflect.DeepEqual(argv, want) {
		t.Fatalf("Argv = %q, want %q", argv, want)
	}
	if _, err := o.Argv("-c:!rm -rf ~", 1, 1); err == nil {
		t.Fatal("a relative path (an option in disguise) was accepted")
	}
}

func TestVisualOpenCmd(t *testing.T) {
	for visual, want := range map[string]string{
		"":                      "",
		"vim":                   "vim +{line} {file}",
		"/usr/bin/nvim -p":      "/usr/bin/nvim -p +{line} {file}",
		"hx":                    "hx {file}:{line}",
		"code -w":               "code -w --goto {file}:{line}:{column}",
		"'/opt/my ed/bin/ed'":   "'/opt/my ed/bin/ed' {file}",
		"it's":                  "", // unbalanced: not guessed at
		`my\'ed`:                "'my'\\''ed' {file}",
		"ed --at {line} {file}": "ed --at {line} {file}",
	} {
		got := VisualOpenCmd(visual)
		if got != want {
			t.Errorf("VisualOpenCmd(%q) = %q, want %q", visual, got, want)
		}
		if got == "" {
			continue
		}
		if _, err := ParseOpenCmd(got); err != nil {
			t.Errorf("VisualOpenCmd(%q) = %q does not parse: %v", visual, got, err)
		}
	}
	o, _ := ParseOpenCmd(VisualOpenCmd(`my\'ed`))
	if o.words[0] != "my'ed" {
		t.Fatalf("quoting round trip: %q", o.words)
	}
}
