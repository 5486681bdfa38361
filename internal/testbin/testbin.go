// Package testbin is for tests that run claude-ide-bridge as a child process, the way an editor
// plugin or a user does: it builds the binary once per test binary (with -race when the tests
// run with it, so a race in the child fails the test too) and runs the goroutine-leak check.
package testbin

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
	"go.uber.org/goleak"
)

const pkg = "github.com/claude-ide-bridge/claude-ide-bridge/cmd/claude-ide-bridge"

// Main builds the binary into a temporary directory, stores its path in *bin, runs the tests
// with goleak.VerifyTestMain and exits. Call it from TestMain. When the system's temporary
// directory is one other users can write (a sticky /tmp), the tests' temporary files go to a
// private one instead (privateTemp).
func Main(m *testing.M, bin *string, opts ...goleak.Option) {
	removeTemp := privateTemp()
	dir, err := os.MkdirTemp("", "claude-ide-bridge-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, "claude-ide-bridge")
	args := []string{"build", "-o", *bin}
	if raceEnabled {
		args = append(args, "-race") // a race in the child ends it with status 66 and a report
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	cmd := exec.Command(goTool, append(args, pkg)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building claude-ide-bridge:", err)
		os.RemoveAll(dir)
		removeTemp()
		os.Exit(1)
	}
	opts = append(opts, goleak.Cleanup(func(int) { os.RemoveAll(dir); removeTemp() }))
	goleak.VerifyTestMain(m, opts...)
}

// privateTemp points TMPDIR (t.TempDir, os.MkdirTemp, the children run) at a new folder in the
// user's home when the current one, or a folder above it, is one other users can write: the
// bridge starts no language server, and `trust` refuses, in a workspace under such a folder
// (internal/trust.Exposed), and the tests' workspaces are temporary folders. The name is short
// (~/.cib<digits>): the tests make Unix sockets in it, whose paths must stay under 108 bytes.
// It returns the clean-up; nothing changes when the home folder is no better.
func privateTemp() (remove func()) {
	if x, err := trust.Exposed(os.TempDir()); err != nil || len(x) == 0 {
		return func() {}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return func() {}
	}
	dir, err := os.MkdirTemp(home, ".cib")
	if err != nil {
		return func() {}
	}
	if x, err := trust.Exposed(dir); err != nil || len(x) > 0 {
		os.RemoveAll(dir)
		return func() {}
	}
	os.Setenv("TMPDIR", dir)
	return func() { os.RemoveAll(dir) }
}

// Buffer is a bytes.Buffer safe for a child's output and a test reading it at once.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Bytes returns a copy of what was written.
func (b *Buffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.b.Bytes()...)
}

var (
	plainOnce sync.Once
	plainBin  string
	plainErr  error
)

// Plain returns a binary built without -race: the one in *bin when the tests run without it,
// else one built once (a -race binary reserves terabytes of address space, so a test of a
// memory limit needs the plain one).
func Plain(t testing.TB, bin string) string {
	t.Helper()
	if !raceEnabled {
		return bin
	}
	plainOnce.Do(func() {
		plainBin = bin + "-plain"
		goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
		out, err := exec.Command(goTool, "build", "-o", plainBin, pkg).CombinedOutput()
		if err != nil {
			plainErr = fmt.Errorf("building claude-ide-bridge: %v\n%s", err, out)
		}
	})
	if plainErr != nil {
		t.Fatal(plainErr)
	}
	return plainBin
}

// Race reports whether the tests run with the race detector.
const Race = raceEnabled
