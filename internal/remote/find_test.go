package remote_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/editors/terminal"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/remote"
)

// Find picks the live bridge with the most specific folder holding the path, never a lock of
// another IDE (which has no such endpoint) or a dead one.
func TestFindMostSpecificLiveBridge(t *testing.T) {
	lockDir := t.TempDir()
	outer, _ := filepath.EvalSymlinks(t.TempDir())
	inner := filepath.Join(outer, "sub")
	os.Mkdir(inner, 0o755)
	start := func(folder string) *bridge.Bridge {
		ed := terminal.New(eofReader{}, discard{}, terminal.Reject, false)
		t.Cleanup(ed.Close)
		b, err := bridge.Start(bridge.Config{Editor: ed, Info: terminal.Info("T"), Folders: []string{folder}, LockDir: lockDir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	bOuter := start(outer)
	bInner := start(inner)
	// Another IDE's live-looking lock for the inner folder: never ours to talk to.
	ln, err := discovery.Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := discovery.WriteLock(lockDir, ln.Addr().(*net.TCPAddr).Port, discovery.Lock{PID: os.Getpid(), WorkspaceFolders: []string{filepath.Join(inner, "deeper")}, IDEName: "Other", Transport: "ws", AuthToken: "t"}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{filepath.Join(inner, "deeper", "x.go"): bInner.Port(), filepath.Join(outer, "y.go"): bOuter.Port()} {
		got, err := remote.Find([]string{lockDir}, path)
		if err != nil || got.Port != want {
			t.Errorf("Find(%s) = %+v, %v; want port %d", path, got, err, want)
		}
	}
	bInner.Close()
	if got, err := remote.Find([]string{lockDir}, filepath.Join(inner, "x.go")); err != nil || got.Port != bOuter.Port() {
		t.Errorf("after the inner one stopped: %+v, %v; want the outer", got, err)
	}
	if _, err := remote.Find([]string{lockDir}, "/elsewhere/z.go"); !errors.Is(err, remote.ErrNoBridge) {
		t.Errorf("outside every folder: %v", err)
	}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, os.ErrClosed }

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
