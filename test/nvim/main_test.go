// Package nvimtest drives the Neovim plugin in a real headless Neovim, with the
// real bridge binary and a Claude-side WebSocket client.
package nvimtest

import (
	"os"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// bridgeBin is the bridge binary built for this run.
var bridgeBin string

// nvimBin is the Neovim the suite runs: $NVIM_BIN when set (scripts/test runs the suite once
// with Debian's 0.7.2 and once with the newest Neovim), else nvim on PATH.
var nvimBin = "nvim"

// pluginDir is the repository root, where plugin/, lua/ and doc/ sit; put on 'runtimepath'.
var pluginDir string

func TestMain(m *testing.M) {
	pluginDir = harness.Root
	if d := os.Getenv("NVIM_PLUGIN_DIR"); d != "" {
		pluginDir = d // measurements of another checkout (accept_bench_test.go)
	}
	nvimBin = harness.EditorBin("test/nvim", "NVIM_BIN", "nvim")
	testbin.Main(m, &bridgeBin)
}
