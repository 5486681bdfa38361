package discovery

import (
	"os"
	"path/filepath"
	"testing"
)

// The MCP config is written 0600 like the lock, read back, and removed with a stale lock by
// SweepOwn (a bridge killed by SIGKILL leaves both).
func TestMCPConfigWriteReadSweep(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ide")
	c := NewMCPConfig(40001, "0123456789abcdef0123456789abcdef")
	p, err := WriteMCPConfig(dir, 40001, c)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	got, err := ReadMCPConfig(dir, 40001)
	if err != nil || got.MCPServers[MCPServerName].URL != "http://127.0.0.1:40001/mcp" ||
		got.MCPServers[MCPServerName].Headers["Authorization"] != "Bearer 0123456789abcdef0123456789abcdef" {
		t.Fatalf("%+v %v", got, err)
	}
	// A symlink in its place is refused.
	link := MCPConfigPath(dir, 40002)
	os.Symlink(p, link)
	if _, err := ReadMCPConfig(dir, 40002); err == nil {
		t.Error("read through a symlink")
	}
	os.Remove(link)

	if _, err := WriteLock(dir, 40001, Lock{PID: deadPID(t), IDEName: "x", AuthToken: "t", Bridge: BridgeMarker}); err != nil {
		t.Fatal(err)
	}
	removed, err := SweepOwn([]string{dir})
	if err != nil || len(removed) != 1 {
		t.Fatalf("removed %v, %v", removed, err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("the dead bridge's MCP config is left: %v", err)
	}
}
