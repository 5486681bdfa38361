//go:build unix

package trust_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
)

func script(t *testing.T, p string) string {
	t.Helper()
	mkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExecutable: a server program is never taken from the workspace (by a PATH entry inside
// it, a relative entry, a path, a symlink) nor from a folder another user can write.
func TestExecutable(t *testing.T) {
	base := realTemp(t)
	ws := mkdir(t, filepath.Join(base, "ws"))
	good := script(t, filepath.Join(base, "bin", "gopls"))
	script(t, filepath.Join(ws, "bin", "gopls"))
	script(t, filepath.Join(ws, "node_modules", ".bin", "gopls"))
	t.Chdir(ws)

	// In-workspace and relative entries are skipped; the safe one after them is found.
	for _, path := range []string{
		strings.Join([]string{filepath.Join(ws, "bin"), "bin", ".", "", "node_modules/.bin", filepath.Join(base, "bin")}, ":"),
	} {
		got, err := trust.Executable("gopls", path, []string{ws})
		if err != nil || got != good {
			t.Errorf("PATH %s: %q %v, want %s", path, got, err, good)
		}
	}
	// Only workspace entries: not found.
	if got, err := trust.Executable("gopls", filepath.Join(ws, "bin")+":bin", []string{ws}); err == nil {
		t.Errorf("found %s", got)
	}
	// A path into the workspace, relative or absolute, and a symlink outside pointing in.
	link := filepath.Join(base, "bin", "rust-analyzer")
	os.Symlink(filepath.Join(ws, "bin", "gopls"), link)
	for _, name := range []string{"./bin/gopls", filepath.Join(ws, "bin", "gopls"), link} {
		if got, err := trust.Executable(name, "", []string{ws}); !errors.Is(err, trust.ErrUnsafeProgram) {
			t.Errorf("%s: %q %v, want a refusal", name, got, err)
		}
	}
	if _, err := trust.Executable("rust-analyzer", filepath.Join(base, "bin"), []string{ws}); !errors.Is(err, trust.ErrUnsafeProgram) {
		t.Errorf("rust-analyzer on PATH linking into the workspace: %v", err)
	}
	// A PATH folder writable by others, or one of its parents.
	open := mkdir(t, filepath.Join(base, "shared", "bin"))
	script(t, filepath.Join(open, "pylsp"))
	for _, dir := range []string{open, filepath.Dir(open)} {
		os.Chmod(dir, 0o777)
		if _, err := trust.Executable("pylsp", open, []string{ws}); !errors.Is(err, trust.ErrUnsafeProgram) || !strings.Contains(err.Error(), "written by other users") {
			t.Errorf("%s 0777: %v", dir, err)
		}
		os.Chmod(dir, 0o755)
	}
	// Sticky above (as /tmp) is safe.
	os.Chmod(filepath.Dir(open), os.ModeSticky|0o777)
	if _, err := trust.Executable("pylsp", open, []string{ws}); err != nil {
		t.Errorf("under a sticky folder: %v", err)
	}
	os.Chmod(filepath.Dir(open), 0o755)
	if os.Geteuid() == 0 {
		os.Chown(open, 65534, 65534)
		if _, err := trust.Executable("pylsp", open, []string{ws}); !errors.Is(err, trust.ErrUnsafeProgram) || !strings.Contains(err.Error(), "another user") {
			t.Errorf("a folder of uid 65534: %v", err)
		}
		os.Chown(open, 0, 0)
	}
	if got := trust.CleanPath(strings.Join([]string{filepath.Join(ws, "bin"), ".", "", "rel", "/usr/bin"}, ":"), []string{ws}); got != "/usr/bin" {
		t.Errorf("CleanPath = %q", got)
	}
}
