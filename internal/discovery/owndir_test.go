//go:build unix

package discovery

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOwnDir holds every rule its callers use (attach's socket folder, the agents' folders and
// their parents, the lock folder and trust store, the trust store's read check) to real folders:
// what is accepted, made, tightened or refused, and that a refused folder keeps its mode.
func TestOwnDir(t *testing.T) {
	t.Parallel()
	errMine := errors.New("mine")
	var (
		socket = DirRule{Refuse: 0o077, Err: errMine}
		agent  = DirRule{Refuse: 0o022}
		parent = DirRule{Refuse: 0o022, Follow: true}
		lock   = DirRule{Create: true, Tighten: true}
	)
	// folder makes the case's path in base: "missing", a folder of perm, "link" to a 0700
	// folder, "loose-link" to a 0775 one, a "file", or "another's" (0700, uid 65534).
	folder := func(t *testing.T, base, kind string, perm fs.FileMode) string {
		p := filepath.Join(base, "d")
		mk := func(p string, perm fs.FileMode) {
			if err := os.Mkdir(p, perm); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, perm); err != nil { // past the umask
				t.Fatal(err)
			}
		}
		switch kind {
		case "missing":
			p = filepath.Join(base, "a", "d")
		case "dir":
			mk(p, perm)
		case "link", "loose-link":
			real := filepath.Join(base, "real")
			mk(real, map[string]fs.FileMode{"link": 0o700, "loose-link": 0o775}[kind])
			if err := os.Symlink(real, p); err != nil {
				t.Fatal(err)
			}
		case "file":
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		case "another's":
			if os.Geteuid() != 0 {
				t.Skip("needs root to give the folder to another uid")
			}
			mk(p, 0o700)
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	const refused fs.FileMode = 1 << 30 // not permission bits
	for _, c := range []struct {
		name string
		kind string
		perm fs.FileMode // of a "dir"
		rule DirRule
		want fs.FileMode // the mode after (of the link's target), or refused
		err  error       // what a refusal wraps, when not the rule's Err
	}{
		{"socket folder 0700", "dir", 0o700, socket, 0o700, nil},
		{"socket folder 0750", "dir", 0o750, socket, refused, nil},
		{"socket folder 0755", "dir", 0o755, socket, refused, nil},
		{"socket folder missing", "missing", 0, socket, refused, fs.ErrNotExist},
		{"socket folder a symlink", "link", 0, socket, refused, nil},
		{"socket folder a file", "file", 0, socket, refused, nil},
		{"socket folder another's", "another's", 0, socket, refused, nil},
		{"agent folder 0755", "dir", 0o755, agent, 0o755, nil},
		{"agent folder 0700", "dir", 0o700, agent, 0o700, nil},
		{"agent folder group-writable", "dir", 0o775, agent, refused, nil},
		{"agent folder world-writable", "dir", 0o777, agent, refused, nil},
		{"agent folder a symlink", "link", 0, agent, refused, nil},
		{"agent folder another's", "another's", 0, agent, refused, nil},
		{"agent parent a symlink", "link", 0, parent, 0o700, nil},
		{"agent parent a symlink to a loose folder", "loose-link", 0, parent, refused, nil},
		{"agent parent another's", "another's", 0, parent, refused, nil},
		{"lock folder missing: made", "missing", 0, lock, 0o700, nil},
		{"lock folder 0755: tightened", "dir", 0o755, lock, 0o700, nil},
		{"lock folder group-writable: tightened", "dir", 0o775, lock, 0o700, nil},
		{"lock folder 0500: tightened", "dir", 0o500, lock, 0o700, nil},
		{"lock folder a symlink", "link", 0, lock, refused, nil},
		{"lock folder a file", "file", 0, lock, refused, syscall.ENOTDIR},
		{"lock folder another's: not tightened", "another's", 0, lock, refused, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := folder(t, t.TempDir(), c.kind, c.perm)
			before, _ := os.Stat(p)
			fi, err := OwnDir(p, c.rule)
			wantErr := cmp.Or(c.err, c.rule.Err, ErrUnsafeDir)
			switch {
			case c.want == refused:
				if !errors.Is(err, wantErr) {
					t.Fatalf("OwnDir = %v, want a refusal wrapping %v", err, wantErr)
				}
			case err != nil:
				t.Fatalf("OwnDir = %v, want the folder", err)
			case before != nil && fi.Mode().Perm() != before.Mode().Perm():
				t.Errorf("OwnDir returned mode %04o, want the folder as found (%04o)", fi.Mode().Perm(), before.Mode().Perm())
			}
			after, err := os.Stat(p)
			if before == nil && c.want == refused {
				if err == nil {
					t.Errorf("a missing folder was made")
				}
				return
			} else if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if c.want == refused {
				want = before.Mode().Perm() // never tightened where refused
			}
			if after.Mode().Perm() != want {
				t.Errorf("mode after = %04o, want %04o", after.Mode().Perm(), want)
			}
		})
	}
}
