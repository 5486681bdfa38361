// Package testbin holds what tests share: a bounded context (Ctx), and for tests that run
// claude-ide-bridge as a child process, the way an editor plugin or a user does, the binary built
// once per test binary (with -race when the tests run with it, so a race in the child fails the
// test too) and the goroutine-leak check.
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

	"go.uber.org/goleak"
)

const pkg = "github.com/claude-ide-bridge/claude-ide-bridge/cmd/claude-ide-bridge"

// Main builds the binary into a temporary directory, stores its path in *bin, runs the tests
// with goleak.VerifyTestMain and exits. Call it from TestMain.
func Main(m *testing.M, bin *string, opts ...goleak.Option) {
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
		os.Exit(1)
	}
	opts = append(opts, goleak.Cleanup(func(int) { os.RemoveAll(dir) }))
	goleak.VerifyTestMain(m, opts...)
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
