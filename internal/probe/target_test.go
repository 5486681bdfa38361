package probe_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
)

// FindTarget matches a lock the way the CLI does (facts file): "the CLI's cwd equals a workspace
// folder or starts with folder + "/"", newest first, live ones only.
func TestFindTarget(t *testing.T) {
	dir := t.TempDir()
	ws := t.TempDir()
	sub := filepath.Join(ws, "sub")
	os.Mkdir(sub, 0o700)
	b, err := bridge.Start(bridge.Config{Editor: &autoEditor{}, Info: ide.EditorInfo{Name: "Found"}, Folders: []string{ws}, LockDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// A lock whose pid is dead must not be picked even though its folder matches.
	dead := filepath.Join(dir, "1.lock")
	os.WriteFile(dead, []byte(`{"pid":2147483647,"workspaceFolders":["`+ws+`"],"ideName":"Dead","transport":"ws","authToken":"x"}`), 0o600)

	for _, cwd := range []string{ws, sub} {
		got, err := probe.FindTarget([]string{dir}, 0, cwd)
		if err != nil || got.Port != b.Port() || got.Token != b.Token() || got.IDEName != "Found" {
			t.Errorf("cwd %s: got %+v, %v; want port %d", cwd, got, err, b.Port())
		}
	}
	if _, err := probe.FindTarget([]string{dir}, 0, ws+"-other"); err == nil || !strings.Contains(err.Error(), "no live IDE server") {
		t.Errorf("a sibling directory matched: %v", err)
	}
	if got, err := probe.FindTarget([]string{t.TempDir(), dir}, b.Port(), "/"); err != nil || got.Lock != b.LockPath() {
		t.Errorf("by port: %+v, %v", got, err)
	}
	if _, err := probe.FindTarget([]string{dir}, 2, "/"); err == nil {
		t.Error("found a lock for a port without one")
	}
}
