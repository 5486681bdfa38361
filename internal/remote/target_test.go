package remote

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseTarget(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "odd:12") // a file really named so
	os.WriteFile(odd, nil, 0o644)
	for _, tc := range []struct {
		arg  string
		want Target
		err  bool
	}{
		{"a.go", Target{Path: "a.go"}, false},
		{"a.go:7", Target{Path: "a.go", Start: 7, End: 7}, false},
		{"a.go:7-9", Target{Path: "a.go", Start: 7, End: 9}, false},
		{`C:\w\a.go:3`, Target{Path: `C:\w\a.go`, Start: 3, End: 3}, false},
		{odd, Target{Path: odd}, false},
		{"a.go:0", Target{}, true},
		{"a.go:9-7", Target{}, true},
		{"", Target{}, true},
	} {
		got, err := ParseTarget(tc.arg)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %+v (error %v)", tc.arg, got, err, tc.want, tc.err)
		}
	}
}

func TestReadLinesBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("a\r\nb\xff\n𝄞x"), 0o644)
	text, last, err := readLines(path, 2, 3, 100)
	if err != nil || text != "b\uFFFD\n𝄞x" || last != 3 {
		t.Fatalf("readLines = %q %d %v", text, last, err)
	}
	if _, _, err := readLines(path, 1, 3, 4); err == nil {
		t.Fatal("over the bound: no error")
	}
	if _, _, err := readLines(path, 4, 4, 0); err == nil {
		t.Fatal("line 4 of 3: no error")
	}
	// Only the lines asked for are read: a huge line after them costs nothing.
	big := filepath.Join(t.TempDir(), "big")
	os.WriteFile(big, append([]byte("first\n"), make([]byte, 4<<20)...), 0o644)
	if text, _, err := readLines(big, 1, 1, 16); err != nil || text != "first" {
		t.Fatalf("first line of big: %q %v", text, err)
	}
}

func TestMatchFolderMostSpecific(t *testing.T) {
	fs := []string{"/w", "/w/sub", "/ww"}
	for path, want := range map[string]string{"/w/a": "/w", "/w/sub/a": "/w/sub", "/ww/a": "/ww", "/w": "/w", "/wx": "", "/": ""} {
		if got := matchFolder(path, fs); got != want {
			t.Errorf("matchFolder(%q) = %q, want %q", path, got, want)
		}
	}
}
