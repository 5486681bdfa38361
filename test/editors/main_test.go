// Package editorstest runs the key bindings of docs/editors.md in real editors (Vim 9, Kakoune,
// Emacs, Helix) against a real `claude-ide-bridge serve` and a Claude-side WebSocket client. The
// bindings are read out of docs/editors.md, so the documentation is what is tested.
package editorstest

import (
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// bin is the bridge binary built for this run; its directory is put first on the editors' PATH.
var bin string

// root is the repository root.
var root string

func TestMain(m *testing.M) {
	root = harness.Root
	testbin.Main(m, &bin)
}
