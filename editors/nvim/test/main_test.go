// Package nvimtest drives the Neovim plugin in a real headless Neovim, with the
// real bridge binary and a Claude-side WebSocket client.
package nvimtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"go.uber.org/goleak"
)

// bridgeBin is the bridge binary built for this run.
var bridgeBin string

// pluginDir is editors/nvim, put on 'runtimepath'.
var pluginDir string

func TestMain(m *testing.M) {
	_, file, _, _ := runtime.Caller(0)
	pluginDir = filepath.Dir(filepath.Dir(file))
	repo := filepath.Dir(filepath.Dir(pluginDir))
	dir, err := os.MkdirTemp("", "nvimtest-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bridgeBin = filepath.Join(dir, "claude-ide-bridge")
	build := exec.Command("go", "build", "-o", bridgeBin, "./cmd/claude-ide-bridge")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the bridge: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { os.RemoveAll(dir) }))
}
