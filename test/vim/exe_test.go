package vimtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// Issue 35 item 1: the plugin never runs a program from the workspace. With a folder of the
// workspace first on $PATH (direnv's `PATH_add bin`), a `claude-ide-bridge` or `claude` that
// Claude wrote there was what the plugin found and started; now the next entry's: Bin() skips
// the workspace, and claude is the program the bridge found (claudeCommand's argv[0]) in place
// of the default String terminal_cmd's first word.
func TestProgramsAreNeverTheWorkspaces(t *testing.T) {
	pl := harness.PlantOutside(t, bridgeBin, "sleep 60")
	v := startVim(t, "let g:claude_ide_bridge_auto_start = 0")
	bin := filepath.Join(v.ws, "bin")
	pl.Plant(t, bin)
	// The bridge started next inherits this $PATH: claude is looked up on it.
	v.ex("let $PATH = " + vimString(bin+string(os.PathListSeparator)+"bin"+string(os.PathListSeparator)+pl.Outside+string(os.PathListSeparator)+os.Getenv("PATH")))
	v.ex("unlet g:claude_ide_bridge_bin")
	if got := v.str("claude_ide_bridge#Bin()"); got != filepath.Join(pl.Outside, "claude-ide-bridge") {
		t.Errorf("Bin() = %q, want the one outside the workspace", got)
	}
	v.ex("ClaudeCode")
	t.Cleanup(func() { v.tryEval("execute('ClaudeCodeClose')") })
	if !poll(pl.ClaudeRan) {
		t.Errorf("claude outside the workspace did not run; screen:\n%s", v.screen())
	}
	pl.CheckWorkspaceIdle(t)
}
