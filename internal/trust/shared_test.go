//go:build unix

package trust_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
)

// nobody is the second user of these tests (root can chown to it).
const nobody = 65534

func paths(xs []trust.Exposure) []string {
	var out []string
	for _, x := range xs {
		out = append(out, x.Path)
	}
	return out
}

// refusal is Check's error as a *Refusal (the test fails on anything else).
func refusal(t *testing.T, s *trust.Store, folder string) *trust.Refusal {
	t.Helper()
	_, err := s.Check(folder)
	var r *trust.Refusal
	if !errors.As(err, &r) {
		t.Fatalf("Check(%s) = %v, want a refusal", folder, err)
	}
	return r
}

// TestSharedParentRefused (issue 35 item 4): a workspace of ours inside a sticky 1777 folder
// (as /tmp) whose node_modules is another user's: trusting the workspace alone starts nothing,
// and the refusal names the folder and the command; accepting that folder (Trust's accept, as
// `trust --shared` does) lets servers start, until its mode or owner changes. A group-writable
// parent and one owned by another user are refused the same way.
func TestSharedParentRefused(t *testing.T) {
	base := realTemp(t)
	baseline, err := trust.Exposed(base) // /tmp itself, unless TMPDIR is private
	if err != nil {
		t.Fatal(err)
	}
	s, _ := trust.Open(filepath.Join(base, "store"))
	shared := mkdir(t, filepath.Join(base, "shared"))
	os.Chmod(shared, os.ModeSticky|0o777)
	ws := mkdir(t, filepath.Join(shared, "ws"))
	evil := mkdir(t, filepath.Join(shared, "node_modules", "typescript", "lib"))
	if os.Geteuid() == 0 {
		for p := evil; p != shared; p = filepath.Dir(p) {
			os.Chown(p, nobody, nobody)
		}
	}

	got, err := trust.Exposed(ws)
	if err != nil || len(got) != len(baseline)+1 || got[0].Path != shared {
		t.Fatalf("Exposed(ws) = %v %v, want %s then %v", paths(got), err, shared, paths(baseline))
	}
	if !strings.Contains(got[0].Why, "can be written by other users (mode 1777: sticky, but any user can create") {
		t.Errorf("why = %q", got[0].Why)
	}

	// Trusting the workspace alone: trusted, but servers stay off, and the user is told why.
	if _, err := s.Trust(ws); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Trusted(ws); !ok {
		t.Fatal("the entry does not trust ws")
	}
	r := refusal(t, s, ws)
	if r.By != ws || !strings.Contains(strings.Join(paths(r.Exposed), " "), shared) {
		t.Errorf("refusal %+v", r)
	}
	for _, want := range []string{shared + " can be written by other users", "would run as you", "claude-ide-bridge trust --shared " + ws} {
		if !strings.Contains(r.Error(), want) {
			t.Errorf("the refusal lacks %q: %s", want, r.Error())
		}
	}

	// Accepting what was shown lets servers start.
	if _, err := s.Trust(ws, got...); err != nil {
		t.Fatal(err)
	}
	if by, err := s.Check(ws); err != nil || by != ws {
		t.Fatalf("accepted: Check = %q %v", by, err)
	}
	// A sub-folder is trusted through ws with the same acceptance.
	sub := mkdir(t, filepath.Join(ws, "sub"))
	if _, err := s.Check(sub); err != nil {
		t.Errorf("sub: %v", err)
	}

	// The accepted folder changes: its mode, its owner, or it is replaced.
	os.Chmod(shared, 0o777)
	if r := refusal(t, s, ws); len(r.Exposed) != 1 || r.Exposed[0].Path != shared {
		t.Errorf("mode 0777: %v", paths(r.Exposed))
	}
	os.Chmod(shared, os.ModeSticky|0o777)
	if _, err := s.Check(ws); err != nil {
		t.Fatalf("restored: %v", err)
	}
	if os.Geteuid() == 0 {
		os.Chown(shared, nobody, nobody)
		if r := refusal(t, s, ws); !strings.Contains(r.Error(), shared+" belongs to uid 65534") {
			t.Errorf("owner nobody: %v", r)
		}
		os.Chown(shared, 0, 0)
	}

	// A group-writable parent, and (as root) one owned by another user with mode 0755.
	for _, c := range []struct {
		name  string
		mode  os.FileMode
		owner int
		want  string
	}{
		{"group", 0o775, -1, "can be written by other users (mode 0775)"},
		{"owned", 0o755, nobody, "belongs to uid 65534, another user"},
	} {
		if c.owner > 0 && os.Geteuid() != 0 {
			continue
		}
		parent := mkdir(t, filepath.Join(base, c.name))
		w := mkdir(t, filepath.Join(parent, "ws"))
		os.Chmod(parent, c.mode)
		if c.owner > 0 {
			os.Chown(parent, c.owner, c.owner)
		}
		s.Trust(w)
		if r := refusal(t, s, w); !strings.Contains(r.Error(), parent+" "+c.want) {
			t.Errorf("%s: %v", c.name, r)
		}
	}
}

// TestRecreatedFolderNotTrusted (issue 35 item 4): an entry is bound to its folder's owner and
// inode. The folder deleted and made again (a different inode), or made again by another user,
// is not trusted, and Check says why; trusting it again trusts it. An entry written before
// entries were bound (no "folder") trusts nothing and says to trust again. A folder above with
// an entry of its own still trusts it: what is below a trusted folder is trusted.
func TestRecreatedFolderNotTrusted(t *testing.T) {
	base := realTemp(t)
	s, _ := trust.Open(filepath.Join(base, "store"))
	ws := mkdir(t, filepath.Join(base, "ws"))
	if _, err := s.Trust(ws); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Trusted(ws); !ok {
		t.Fatal("not trusted")
	}
	// Made again while the old one still exists elsewhere: the inode cannot be the same.
	if err := os.Rename(ws, filepath.Join(base, "old")); err != nil {
		t.Fatal(err)
	}
	mkdir(t, ws)
	if by, ok := s.Trusted(ws); ok {
		t.Fatalf("a folder made again is trusted (by %s)", by)
	}
	r := refusal(t, s, ws)
	if len(r.Changed) != 1 || !strings.Contains(r.Error(), ws+" was trusted on ") || !strings.Contains(r.Error(), "deleted and made again") {
		t.Errorf("refusal: %v", r)
	}
	if os.Geteuid() == 0 {
		os.Chown(ws, nobody, nobody)
		if r := refusal(t, s, ws); !strings.Contains(r.Error(), "owner uid 65534") {
			t.Errorf("made again by nobody: %v", r)
		}
		os.Chown(ws, 0, 0)
	}
	if _, err := s.Trust(ws); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Trusted(ws); !ok {
		t.Error("trusted again: not trusted")
	}

	// An entry of an older version, without the folder's identity.
	des, _ := os.ReadDir(s.Path())
	entry := filepath.Join(s.Path(), des[0].Name())
	b, _ := json.Marshal(map[string]string{"path": ws, "trusted": "2026-01-01T00:00:00Z"})
	os.WriteFile(entry, b, 0o600)
	if _, ok := s.Trusted(ws); ok {
		t.Error("an entry without the folder's identity trusts")
	}
	if r := refusal(t, s, ws); !strings.Contains(r.Error(), "older claude-ide-bridge") {
		t.Errorf("old entry: %v", r)
	}

	// A trusted folder above still trusts what is below it.
	if _, err := s.Trust(base); err != nil {
		t.Fatal(err)
	}
	if by, ok := s.Trusted(ws); !ok || by != base {
		t.Errorf("Trusted(ws) = %q %v, want through %s", by, ok, base)
	}
}
