package trust_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
)

func realTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTrustStore: trust, ancestors, symlinks, list, revoke; the files are 0600 in a 0700 dir.
func TestTrustStore(t *testing.T) {
	base := realTemp(t)
	s, _ := trust.Open(filepath.Join(base, "config", "claude-ide-bridge", "trusted"))
	code := mkdir(t, filepath.Join(base, "code"))
	proj := mkdir(t, filepath.Join(code, "proj", "sub"))
	other := mkdir(t, filepath.Join(base, "other"))
	link := filepath.Join(base, "link")
	if err := os.Symlink(filepath.Join(code, "proj"), link); err != nil {
		t.Fatal(err)
	}

	// Step 1: nothing is trusted; the store does not exist yet.
	if _, ok := s.Trusted(proj); ok {
		t.Fatal("trusted before any trust")
	}
	if l, err := s.List(); err != nil || len(l) != 0 {
		t.Fatalf("List = %v %v", l, err)
	}

	// Step 2: trusting the folder through a symlink records the resolved path.
	got, err := s.Trust(link)
	if err != nil || got != filepath.Join(code, "proj") {
		t.Fatalf("Trust = %q %v", got, err)
	}
	for _, p := range []string{filepath.Join(code, "proj"), proj, link, filepath.Join(link, "sub")} {
		if by, ok := s.Trusted(p); !ok || by != filepath.Join(code, "proj") {
			t.Errorf("Trusted(%s) = %q %v", p, by, ok)
		}
	}
	for _, p := range []string{code, other, base} {
		if _, ok := s.Trusted(p); ok {
			t.Errorf("%s trusted", p)
		}
	}
	fi, err := os.Stat(s.Path())
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("store dir: %v %v", fi.Mode(), err)
	}
	des, _ := os.ReadDir(s.Path())
	if len(des) != 1 {
		t.Fatalf("store holds %d files", len(des))
	}
	if fi, _ := os.Stat(filepath.Join(s.Path(), des[0].Name())); fi.Mode().Perm() != 0o600 {
		t.Errorf("entry mode %v", fi.Mode())
	}

	// Step 3: list shows it; revoking the sub-folder says which folder holds the trust.
	if l, err := s.List(); err != nil || len(l) != 1 || l[0].Path != filepath.Join(code, "proj") || l[0].Trusted.IsZero() {
		t.Fatalf("List = %+v %v", l, err)
	}
	if _, err := s.Revoke(proj); err == nil || !strings.Contains(err.Error(), "trusted because "+filepath.Join(code, "proj")) {
		t.Errorf("Revoke(sub) = %v", err)
	}
	if _, err := s.Revoke(link); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Trusted(proj); ok {
		t.Error("still trusted after revoke")
	}
	if _, err := s.Revoke(link); err == nil || !strings.Contains(err.Error(), "is not trusted") {
		t.Errorf("second Revoke = %v", err)
	}
}

// TestStoreOthersCannotWrite: a store directory or an entry another user could have written
// trusts nothing; an entry naming another folder than its own file's is ignored.
func TestStoreOthersCannotWrite(t *testing.T) {
	base := realTemp(t)
	s, _ := trust.Open(filepath.Join(base, "trusted"))
	ws := mkdir(t, filepath.Join(base, "ws"))
	if _, err := s.Trust(ws); err != nil {
		t.Fatal(err)
	}
	des, _ := os.ReadDir(s.Path())
	entry := filepath.Join(s.Path(), des[0].Name())

	os.Chmod(s.Path(), 0o777)
	if _, ok := s.Trusted(ws); ok {
		t.Error("trusted from a world-writable store")
	}
	os.Chmod(s.Path(), 0o700)
	os.Chmod(entry, 0o666)
	if _, ok := s.Trusted(ws); ok {
		t.Error("trusted from a world-writable entry")
	}
	os.Chmod(entry, 0o600)
	if os.Geteuid() == 0 {
		os.Chown(entry, 65534, 65534)
		if _, ok := s.Trusted(ws); ok {
			t.Error("trusted from another user's entry")
		}
		os.Chown(entry, 0, 0)
	}
	if _, ok := s.Trusted(ws); !ok {
		t.Fatal("the restored entry does not trust")
	}
	// An entry file copied under another folder's name does not trust that folder.
	other := mkdir(t, filepath.Join(base, "other"))
	s2, _ := trust.Open(filepath.Join(base, "scratch"))
	s2.Trust(other)
	des2, _ := os.ReadDir(s2.Path())
	b, _ := os.ReadFile(entry)
	os.WriteFile(filepath.Join(s.Path(), des2[0].Name()), b, 0o600)
	if _, ok := s.Trusted(other); ok {
		t.Error("an entry naming ws trusts other")
	}
}

func mkdirAll(p string) error { return os.MkdirAll(p, 0o755) }
