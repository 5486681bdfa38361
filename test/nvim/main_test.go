// Package nvimtest drives the Neovim plugin in a real headless Neovim, with the
// real bridge binary and a Claude-side WebSocket client.
package nvimtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/testbin"
)

// bridgeBin is the bridge binary built for this run.
var bridgeBin string

// nvimBin is the Neovim the suite runs: $NVIM_BIN when set (scripts/test runs
// the suite once with Debian's 0.7.2 and once with the newest Neovim), else
// nvim on PATH.
var nvimBin = "nvim"

// pluginDir is the repository root, where plugin/, lua/ and doc/ sit; put on 'runtimepath'.
var pluginDir string

func TestMain(m *testing.M) {
	_, file, _, _ := runtime.Caller(0)
	pluginDir = filepath.Dir(filepath.Dir(filepath.Dir(file)))
	if d := os.Getenv("NVIM_PLUGIN_DIR"); d != "" {
		pluginDir = d // measurements of another checkout (accept_bench_test.go)
	}
	if b := os.Getenv("NVIM_BIN"); b != "" {
		nvimBin = b
	}
	if out, err := exec.Command(nvimBin, "--version").Output(); err == nil {
		// Which Neovim ran, in the log of every run.
		first, _, _ := strings.Cut(string(out), "\n")
		fmt.Fprintf(os.Stderr, "test/nvim: %s (%s)\n", first, nvimBin)
	}
	testbin.Main(m, &bridgeBin)
}
