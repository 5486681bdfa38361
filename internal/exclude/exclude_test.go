package exclude

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMatch(t *testing.T) {
	def, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	folders := []string{"/p"}
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/p/.env", true},
		{"/p/.env.local", true},
		{"/p/sub/.env.production", true},
		{"/p/certs/server.pem", true},
		{"/home/u/.ssh/id_ed25519", true},
		{"/home/u/.ssh/id_rsa.pub", true},
		{".env", true}, // relative: against the first folder
		{"/p/main.go", false},
		{"/p/environment.go", false},
		{"/p/.envrc", false},
		{"/p/docs/id.md", false},
	} {
		if got := def.Excludes(c.path, folders); got != c.want {
			t.Errorf("default Excludes(%q) = %v, want %v", c.path, got, c.want)
		}
	}
	own, err := New([]string{"secrets", "config/*.yml", "/etc/**", "**/private/*.txt"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/p/secrets/db.yml", true},  // a folder name
		{"/p/config/app.yml", true},  // relative to the workspace
		{"/q/config/app.yml", false}, // another tree
		{"/p/a/config/app.yml", false},
		{"/etc/passwd", true},
		{"/p/x/private/a.txt", true},
		{"/p/.env", false}, // own globs replace the default
	} {
		if got := own.Excludes(c.path, folders); got != c.want {
			t.Errorf("Excludes(%q) = %v, want %v", c.path, got, c.want)
		}
	}
	none, _ := New([]string{})
	if none.Excludes("/p/.env", folders) {
		t.Error("an empty list excludes .env")
	}
	var zero *Set
	if zero.Excludes("/p/.env", folders) {
		t.Error("a nil Set excludes")
	}
	if _, err := New([]string{"[a"}); err == nil {
		t.Error("a malformed glob was taken")
	}
}

// Issue 35 item 2: a symlink is judged by the file it names too. Real files, real links: a
// link named settings.txt to .env, to server.key, a dangling link to a .env not written yet, a
// link to a folder named secrets, a folder link leading into config/, a chain of links.
func TestExcludesThroughLinks(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(ws, rel)); err != nil {
			t.Fatal(err)
		}
	}
	write(".env", "SECRET=1\n")
	write("server.key", "KEY\n")
	write("secrets/db.yml", "pw: 1\n")
	write("config/app.yml", "pw: 2\n")
	write("main.go", "package main\n")
	link(".env", "settings.txt")
	link("server.key", "notes.md")
	link("sub/../.env.local", "later.txt") // dangling: .env.local does not exist yet
	link("secrets", "plain")
	link("config", "conf")
	link("settings.txt", "chain.txt")
	link("main.go", "main-link.go")
	def, _ := New(nil)
	own, _ := New([]string{"secrets", "config/*.yml"})
	folders := []string{ws}
	for _, c := range []struct {
		set  *Set
		rel  string
		want bool
	}{
		{def, "settings.txt", true},
		{def, "notes.md", true},
		{def, "later.txt", true},
		{def, "chain.txt", true},
		{def, ".env", true},
		{def, "main.go", false},
		{def, "main-link.go", false},
		{own, "plain/db.yml", true},  // a folder link to secrets/
		{own, "plain/new.yml", true}, // a file not there yet, under the link
		{own, "conf/app.yml", true},  // relative glob, reached through a folder link
		{own, "settings.txt", false}, // own globs replace the default
	} {
		for _, p := range []string{c.rel, filepath.Join(ws, c.rel)} {
			if got := c.set.Excludes(p, folders); got != c.want {
				t.Errorf("Excludes(%q) = %v, want %v", p, got, c.want)
			}
		}
	}
}

// BenchmarkExcludes is the check each editor selection pays: the default globs, a file that
// exists four folders down (one lstat per component) and one that does not (every prefix tried).
func BenchmarkExcludes(b *testing.B) {
	ws, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(ws, "internal", "ide", "selection.go")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte("package ide\n"), 0o644)
	def, _ := New(nil)
	for name, p := range map[string]string{"exists": file, "missing": "/w/internal/ide/selection.go"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if def.Excludes(p, []string{ws}) {
					b.Fatal("excluded")
				}
			}
		})
	}
}
