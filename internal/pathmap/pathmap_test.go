package pathmap

import (
	"errors"
	"strings"
	"testing"
)

// The translation table of issue 19: "The path-translation table as a Go test (POSIX, WSL,
// Windows drive letters, URIs with spaces and non-ASCII, unmapped paths refused)".
func TestTranslate(t *testing.T) {
	m, err := Parse([]string{
		"/Users/me/app=/srv/app",
		"/Users/me/app/vendor=/opt/vendor", // nested: the longer prefix wins
		"/Users/me=/home/me",
		`C:\src\app=/mnt/c/src/app`, // WSL, as a Windows user writes it
		`\\wsl.localhost\Ubuntu\home\dev=/home/dev`,
		"/work/win=D:/Projects/Win", // the other way round: the CLI on Windows
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir      Direction
		in, want string
	}{
		// POSIX
		{ToRemote, "/Users/me/app/main.go", "/srv/app/main.go"},
		{ToRemote, "/Users/me/app", "/srv/app"},
		{ToRemote, "/Users/me/app/", "/srv/app"},
		{ToRemote, "/Users/me/app/./x/../y.go", "/srv/app/y.go"},
		{ToRemote, "/Users/me/app/vendor/lib.go", "/opt/vendor/lib.go"},
		{ToRemote, "/Users/me/notes.txt", "/home/me/notes.txt"},
		{ToRemote, "/Users/me/app2/x", "/home/me/app2/x"}, // a separator boundary, not a string prefix
		{ToRemote, "/Users/me/app/a b/日本.go", "/srv/app/a b/日本.go"},
		{ToLocal, "/srv/app/main.go", "/Users/me/app/main.go"},
		{ToLocal, "/opt/vendor/lib.go", "/Users/me/app/vendor/lib.go"},
		{ToLocal, "/home/me/.bashrc", "/Users/me/.bashrc"},
		// WSL: drive letters in either case, either separator; out with backslashes
		{ToRemote, `C:\src\app\cmd\main.go`, "/mnt/c/src/app/cmd/main.go"},
		{ToRemote, `c:\src\app\cmd\main.go`, "/mnt/c/src/app/cmd/main.go"},
		{ToRemote, `C:/src/app/cmd/main.go`, "/mnt/c/src/app/cmd/main.go"},
		{ToRemote, `C:\src\app`, "/mnt/c/src/app"},
		{ToLocal, "/mnt/c/src/app/cmd/main.go", `C:\src\app\cmd\main.go`},
		{ToLocal, "/mnt/c/src/app", `C:\src\app`},
		// UNC (the WSL file system seen from Windows): server and share case-insensitive
		{ToRemote, `\\wsl.localhost\Ubuntu\home\dev\x.go`, "/home/dev/x.go"},
		{ToRemote, `\\WSL.LOCALHOST\ubuntu\home\dev\x.go`, "/home/dev/x.go"},
		{ToLocal, "/home/dev/x.go", `\\wsl.localhost\Ubuntu\home\dev\x.go`},
		// Windows on the remote side
		{ToRemote, "/work/win/a.cs", `D:\Projects\Win\a.cs`},
		{ToLocal, `d:\Projects\Win\a.cs`, "/work/win/a.cs"},
		// file:// URIs, produced and parsed on both sides
		{ToRemote, "file:///Users/me/app/a%20b.go", "file:///srv/app/a%20b.go"},
		{ToRemote, "file:///Users/me/app/%E6%97%A5%E6%9C%AC.go", "file:///srv/app/%E6%97%A5%E6%9C%AC.go"},
		{ToRemote, "file:///C:/src/app/x.go", "file:///mnt/c/src/app/x.go"},
		{ToRemote, "file:///c%3A/src/app/x%20y.go", "file:///mnt/c/src/app/x%20y.go"}, // VS Code's spelling
		{ToRemote, "file://localhost/Users/me/app/x.go", "file:///srv/app/x.go"},
		{ToLocal, "file:///mnt/c/src/app/x.go", "file:///C:/src/app/x.go"},
		{ToLocal, "file:///mnt/c/src/app/a%20b/%C3%A9.go", "file:///C:/src/app/a%20b/%C3%A9.go"},
		{ToLocal, "file:///srv/app/%23hash%25.go", "file:///Users/me/app/%23hash%25.go"},
		{ToLocal, "file:///home/dev/x.go", "file://wsl.localhost/Ubuntu/home/dev/x.go"},
		{ToRemote, "file://wsl.localhost/Ubuntu/home/dev/x.go", "file:///home/dev/x.go"},
		{ToRemote, "file:///work/win/a%20b.cs", "file:///D:/Projects/Win/a%20b.cs"},
	} {
		got, err := m.Translate(c.in, c.dir)
		if err != nil || got != c.want {
			t.Errorf("Translate(%q, %v) = %q, %v; want %q", c.in, c.dir, got, err, c.want)
		}
	}
}

func TestUnmappedRefused(t *testing.T) {
	m, err := Parse([]string{"/Users/me/app=/srv/app", `C:\src\app=/mnt/c/src/app`})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir Direction
		in  string
	}{
		{ToRemote, "/etc/passwd"},
		{ToRemote, "/Users/me/app/../secret"}, // .. does not escape a mapping
		{ToRemote, "/Users/me/app/x/../../other"},
		{ToRemote, "/Users/me/appendix"},
		{ToRemote, "relative/x.go"},
		{ToRemote, ""},
		{ToRemote, `D:\src\app\x.go`},
		{ToRemote, `C:\src\application`},
		{ToRemote, "/srv/app/x.go"}, // a REMOTE path sent by the editor is not LOCAL
		{ToLocal, "/Users/me/app/x.go"},
		{ToLocal, "/mnt/c/src/app/../../d/x"},
		{ToLocal, "file:///etc/passwd"},
		{ToLocal, "file:///srv/app/x.go?q=1"},
	} {
		got, err := m.Translate(c.in, c.dir)
		if err == nil {
			t.Errorf("Translate(%q, %v) = %q; want an error", c.in, c.dir, got)
		}
	}
	_, err = m.ToRemote("/etc/passwd")
	var ue *UnmappedError
	if !errors.As(err, &ue) || ue.Path != "/etc/passwd" || !strings.Contains(err.Error(), "/Users/me/app") {
		t.Errorf("error %v: want an *UnmappedError naming the path and the LOCAL prefixes", err)
	}
	// Untrusted text in the message is quoted: no raw control characters reach a terminal.
	_, err = m.ToRemote("/x\x1b[2J")
	if err == nil || strings.ContainsRune(err.Error(), 0x1b) {
		t.Errorf("error %q carries a raw escape", err)
	}
	var nilMap *Map
	if !nilMap.Empty() {
		t.Error("a nil Map is not empty")
	}
	if _, err := nilMap.ToRemote("/x"); err == nil {
		t.Error("a nil Map translated a path")
	}
}

func TestRootMappings(t *testing.T) {
	m, err := Parse([]string{"/=/host", `C:\=/mnt/c`})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir      Direction
		in, want string
	}{
		{ToRemote, "/a/b", "/host/a/b"},
		{ToRemote, "/", "/host"},
		{ToLocal, "/host/a", "/a"},
		{ToLocal, "/host", "/"},
		{ToRemote, `c:\x\y`, "/mnt/c/x/y"},
		{ToLocal, "/mnt/c/x", `C:\x`},
		{ToLocal, "/mnt/c", `C:\`},
	} {
		got, err := m.Translate(c.in, c.dir)
		if err != nil || got != c.want {
			t.Errorf("Translate(%q, %v) = %q, %v; want %q", c.in, c.dir, got, err, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, specs := range [][]string{
		{"/a"},
		{"=/b"},
		{"/a="},
		{"a=/b"},
		{"/a=b"},
		{"/a=/b", "/a/=/c"},    // LOCAL twice
		{"/a=/b", "/c=/b"},     // REMOTE twice
		{`C:\a=/b`, `c:/a=/c`}, // the same drive, other spelling
		{"file://x?y=/b"},
	} {
		if _, err := Parse(specs); err == nil {
			t.Errorf("Parse(%q) accepted", specs)
		}
	}
	if m, err := Parse(nil); err != nil || !m.Empty() {
		t.Errorf("Parse(nil) = %v, %v; want an empty map", m, err)
	}
}

// Issue 25 item 4: with a POSIX REMOTE and a Windows LOCAL, `/srv/app/..\..\Users\me\.ssh\x` is
// one name (`..\..\Users\me\.ssh\x`) under /srv/app on the POSIX side, and reached the editor
// as C:\Users\me\proj\..\..\Users\me\.ssh\x, a path outside LOCAL. A name that is plain on one
// side and a separator, a step up or something else on the other is refused, both ways; names
// that are plain on both sides still cross.
func TestSegmentRulesOfBothSides(t *testing.T) {
	m, err := Parse([]string{`C:\Users\me\proj=/srv/app`, `/home/me/src=D:\work`})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir Direction
		in  string
	}{
		{ToLocal, `/srv/app/..\..\Users\me\.ssh\x`},
		{ToLocal, `/srv/app/a\..\..\..\x`},
		{ToLocal, `/srv/app/.. /x`},  // Windows drops the space: ".."
		{ToLocal, `/srv/app/... /x`}, // and the dots and spaces at the end
		{ToLocal, `/srv/app/x..`},    // Windows reads "x"
		{ToLocal, `/srv/app/x:stream`},
		{ToLocal, `/srv/app/C:x`},
		{ToLocal, "/srv/app/a\x00b"},
		{ToLocal, "file:///srv/app/..%5C..%5CUsers%5Cme%5C.ssh%5Cx"},
		{ToRemote, `C:\Users\me\proj\.. \x`}, // Windows reads this as ..\x
		{ToRemote, `/home/me/src/..\..\x`},   // a POSIX LOCAL, a Windows REMOTE
		{ToRemote, `/home/me/src/a.`},
	} {
		got, err := m.Translate(c.in, c.dir)
		var ue *UnsafeError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "cannot cross the path map") {
			t.Errorf("Translate(%q, %v) = %q, %v; want an *UnsafeError", c.in, c.dir, got, err)
		}
	}
	for _, c := range []struct {
		dir      Direction
		in, want string
	}{
		{ToLocal, "/srv/app/a..b/.x", `C:\Users\me\proj\a..b\.x`},
		{ToLocal, "/srv/app/日本 語/a-b_c.go", `C:\Users\me\proj\日本 語\a-b_c.go`},
		{ToRemote, `C:\Users\me\proj\a\b.go`, "/srv/app/a/b.go"},
		{ToRemote, `/home/me/src/x/y.cs`, `D:\work\x\y.cs`},
	} {
		got, err := m.Translate(c.in, c.dir)
		if err != nil || got != c.want {
			t.Errorf("Translate(%q, %v) = %q, %v; want %q", c.in, c.dir, got, err, c.want)
		}
	}
}
