package exclude

import "testing"

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
		if got := def.Match(c.path, folders); got != c.want {
			t.Errorf("default Match(%q) = %v, want %v", c.path, got, c.want)
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
		if got := own.Match(c.path, folders); got != c.want {
			t.Errorf("Match(%q) = %v, want %v", c.path, got, c.want)
		}
	}
	none, _ := New([]string{})
	if none.Match("/p/.env", folders) {
		t.Error("an empty list excludes .env")
	}
	var zero *Set
	if zero.Match("/p/.env", folders) {
		t.Error("a nil Set excludes")
	}
	if _, err := New([]string{"[a"}); err == nil {
		t.Error("a malformed glob was taken")
	}
}
