package editorstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// helix returns Helix's path: `hx` on PATH, else $HELIX_BIN (scripts/test sets it from
// scripts/ensure-helix), else the test is skipped loudly.
func helix(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("hx"); err == nil {
		return p
	}
	if p := os.Getenv("HELIX_BIN"); p != "" {
		return p
	}
	// Helix may be unobtainable (Debian sid unreachable): never required, always said.
	t.Skip("SKIPPED: no Helix (hx not on PATH, HELIX_BIN unset; scripts/ensure-helix installs it): the Helix binding of docs/editors.md is not tested")
	return ""
}

// docs/editors.md "Helix": in a real Helix in tmux (it needs a terminal), `xx` selects lines 2-3
// and `+m` mentions them; `gg3j` (line 4) and `+s` selects it. The file name has a space.
func TestHelixBinding(t *testing.T) {
	hx := helix(t)
	tmux := need(t, "tmux")
	w := newWorld(t, "a file.txt")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte(snippet(t, "helix")+"\n"), 0o644)
	tm := harness.StartTmux(t, tmux, 100, 30, harness.ShellExports(w.env)+"cd '"+w.ws+"'\nexec '"+hx+"' -c '"+cfg+"' 'a file.txt'\n")
	tm.WaitScreen("three")
	tm.Keys("j", "x", "x", "+", "m")
	tm.WaitScreen("mentioned a file.txt:2-3")
	// Escape closes the output popup. Sent with the next keys it would read as Alt-<key>, so
	// the test waits for the popup to go first.
	tm.Keys("Escape")
	tm.WaitGone("mentioned a file.txt")
	tm.Keys("g", "g", "3", "j", "+", "s")
	tm.WaitScreen("selected a file.txt:4")
	w.expect(t, 2, 3, "four")
	tm.Keys("Escape")
}
