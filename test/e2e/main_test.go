// Package e2e runs the real Claude Code CLI (pinned 2.1.328, in a pty,
// offline against a fake Messages API) against the claude-ide-bridge binary,
// with the test acting as the editor over the stdio protocol.
//
//	CLAUDE_BIN=$(scripts/ensure-claude-cli) go test -race ./test/e2e/
//
// Without CLAUDE_BIN every test skips (and fails when CI is set). TestCodexIDEContext also
// needs CODEX_BIN (set -a; eval "$(scripts/ensure-agent-clis)"; set +a) and skips without it. Each test
// asserts on the bridge's --trace of WebSocket frames, on what the fake API
// was sent and on the files on disk.
package e2e

import (
	"fmt"
	"os"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// bridgeBin is the claude-ide-bridge binary TestMain built (with -race
// when the tests run with it).
var bridgeBin string

func TestMain(m *testing.M) {
	if os.Getenv("CLAUDE_BIN") == "" {
		fmt.Fprintln(os.Stderr, "e2e: CLAUDE_BIN not set, SKIPPING the end-to-end suite: export CLAUDE_BIN=$(scripts/ensure-claude-cli)")
	}
	testbin.Main(m, &bridgeBin)
}
