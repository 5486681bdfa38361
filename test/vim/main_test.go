// Package vimtest drives the Vim plugin (editors/vim) in a real Vim 9 inside tmux, typed at with
// real keys, with the real bridge binary and a Claude-side WebSocket client (internal/probe).
// The test reads and drives Vim through a channel Vim opens to it (mode json: the test sends
// ["expr", ...] and Vim answers), the way a Vim plugin talks to a server.
package vimtest

import (
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// bridgeBin is the bridge binary built for this run.
var bridgeBin string

// root is the repository root; the plugin is root/editors/vim.
var root string

func TestMain(m *testing.M) {
	root = harness.Root
	testbin.Main(m, &bridgeBin)
}
