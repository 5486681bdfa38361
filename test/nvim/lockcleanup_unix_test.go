//go:build unix

package nvimtest

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// bridgePID is the pid of the plugin's bridge process.
func bridgePID(t *testing.T, n *nvim) int {
	t.Helper()
	pid, err := strconv.Atoi(n.str(t, `return tostring(require("claude-ide-bridge").state().bridge_pid)`))
	if err != nil || pid <= 0 {
		t.Fatalf("no bridge pid: %v", err)
	}
	return pid
}

// Issue 15 item 3: "make the editor plugins remove their lock when their bridge dies". A bridge
// killed with SIGKILL cannot remove its lock, which names Neovim's live pid; the plugin must.
func TestLockRemovedWhenBridgeDies(t *testing.T) {
	e := newEnv(t, nil, false)
	port, _ := readLock(t, e.cfg)
	pid := bridgePID(t, e.n)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(e.cfg, "ide", itoa(port)+".lock")
	waitFor(t, "the dead bridge's lock to be removed by the plugin", func() bool {
		_, err := os.Stat(lock)
		return os.IsNotExist(err)
	})
}

// A lock at the same path that names another process (another editor took the port) is kept.
func TestForeignLockKeptWhenBridgeDies(t *testing.T) {
	e := newEnv(t, nil, false)
	port, _ := readLock(t, e.cfg)
	lock := filepath.Join(e.cfg, "ide", itoa(port)+".lock")
	pid := bridgePID(t, e.n)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	foreign := `{"pid":1,"workspaceFolders":[],"ideName":"Other","transport":"ws","authToken":"x"}`
	if err := os.WriteFile(lock, []byte(foreign), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(lock) }) // the env's own teardown wants no lock left
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	e.n.waitLua(t, `false`, `return require("claude-ide-bridge").state().running`)
	if got := harness.FileText(lock); got != foreign {
		t.Fatalf("the plugin touched a lock that is not its own: %q", got)
	}
}
