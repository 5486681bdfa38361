package discovery

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// AgentFiles reads each discovery file with a bound: a 64 GiB (sparse) file in the folder is
// listed, not read (os.ReadFile would ask for 64 GiB at once), while a real one is read.
func TestAgentFilesReadBounded(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "agent-0-41001.json")
	if err := os.WriteFile(real, []byte(`{"bridge":"`+BridgeMarker+`","workspacePath":"/w"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "agent-0-41002.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 30); err != nil {
		t.Skip("no sparse 64 GiB file here:", err)
	}
	f.Close()
	name := func(n string) (int, int, bool) {
		port, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(n, "agent-0-"), ".json"))
		return 0, port, err == nil
	}
	got := map[int]AgentFile{}
	for _, a := range AgentFiles(dir, name) {
		got[a.Port] = a
	}
	if a := got[41001]; !a.Bridge || a.Workspace != "/w" {
		t.Errorf("the real file read as %+v", a)
	}
	if a, ok := got[41002]; !ok || a.Bridge {
		t.Errorf("the huge file: listed %v, read as %+v", ok, a)
	}
}
