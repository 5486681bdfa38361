// Package emacstest runs editors/emacs/claude-ide-bridge.el in real Emacs: ERT in `emacs
// --batch` for its pieces, and an interactive `emacs -nw` in tmux, driven by keys, against the
// real bridge with a Claude-side WebSocket client (internal/probe); and once with the real
// Claude Code CLI and the fake model API.
package emacstest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/testbin"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// bridgeBin is the bridge binary built for this run.
var bridgeBin string

// root is the repository root; pkgFile the package under test.
var root, pkgFile string

// emacsBin is the Emacs the suite runs: $EMACS_BIN when set (scripts/test runs the suite again
// on a newer Emacs when it can fetch one), else emacs on PATH.
var emacsBin = "emacs"

func TestMain(m *testing.M) {
	_, file, _, _ := runtime.Caller(0)
	root = filepath.Dir(filepath.Dir(filepath.Dir(file)))
	pkgFile = filepath.Join(root, "editors", "emacs", "claude-ide-bridge.el")
	if b := os.Getenv("EMACS_BIN"); b != "" {
		emacsBin = b
	}
	if out, err := exec.Command(emacsBin, "--version").Output(); err == nil {
		first, _, _ := strings.Cut(string(out), "\n")
		fmt.Fprintf(os.Stderr, "test/emacs: %s (%s)\n", first, emacsBin)
	}
	testbin.Main(m, &bridgeBin)
}

// needEmacs returns Emacs's path or ends the test as harness.Missing says.
func needEmacs(t *testing.T) string {
	t.Helper()
	return harness.Need(t, emacsBin, "the Emacs package")
}
