// Package emacstest runs editors/emacs/claude-ide-bridge.el in real Emacs: ERT in `emacs
// --batch` for its pieces, and an interactive `emacs -nw` in tmux, driven by keys, against the
// real bridge with a Claude-side WebSocket client (internal/probe); and once with the real
// Claude Code CLI and the fake model API.
package emacstest

import (
	"path/filepath"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// bridgeBin is the bridge binary built for this run.
var bridgeBin string

// root is the repository root; pkgFile the package under test.
var root, pkgFile string

// emacsBin is the Emacs the suite runs: $EMACS_BIN when set (scripts/test runs the suite again
// on a newer Emacs when it can fetch one), else emacs on PATH.
var emacsBin = "emacs"

func TestMain(m *testing.M) {
	root = harness.Root
	pkgFile = filepath.Join(root, "editors", "emacs", "claude-ide-bridge.el")
	emacsBin = harness.EditorBin("test/emacs", "EMACS_BIN", "emacs")
	testbin.Main(m, &bridgeBin)
}

// needEmacs returns Emacs's path or ends the test as harness.Missing says.
func needEmacs(t *testing.T) string {
	t.Helper()
	return harness.Need(t, emacsBin, "the Emacs package")
}
