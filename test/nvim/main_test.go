// Package nvimtest drives the Neovim plugin in a real headless Neovim, with the
// real bridge binary and a Claude-side WebSocket client.
package nvimtest

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/testbin"
)

// bridgeBin is the bridge binary built for this run.
var bridgeBin string

// pluginDir is the repository root, where plugin/, lua/ and doc/ sit; put on 'runtimepath'.
var pluginDir string

func TestMain(m *testing.M) {
	_, file, _, _ := runtime.Caller(0)
	pluginDir = filepath.Dir(filepath.Dir(filepath.Dir(file)))
	testbin.Main(m, &bridgeBin)
}
