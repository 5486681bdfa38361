package nvimtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// Issue 35 item 1: the plugin never runs a program from the workspace. With a folder of the
// workspace first on $PATH (a direnv `PATH_add bin`), a `claude-ide-bridge` or `claude` that
// Claude wrote there was what the plugin started; now the next entry's.
func TestProgramsAreNeverTheWorkspaces(t *testing.T) {
	pl := harness.PlantOutside(t, bridgeBin, "cat")
	e := newEnvBefore(t, map[string]any{"bin": "", "model_tools": false}, func(e *env) {
		bin := filepath.Join(e.proj, "bin")
		pl.Plant(t, bin)
		t.Setenv("PATH", bin+string(os.PathListSeparator)+pl.Outside+string(os.PathListSeparator)+os.Getenv("PATH"))
	})
	var got string
	e.n.luaInto(t, &got, `return require("claude-ide-bridge").bin()`)
	if got != filepath.Join(pl.Outside, "claude-ide-bridge") {
		t.Errorf("bin() = %q, want the one outside the workspace", got)
	}
	e.n.ex(t, "ClaudeCode")
	waitFor(t, "claude outside the workspace", pl.ClaudeRan)
	e.n.ex(t, "ClaudeCodeClose")
	pl.CheckWorkspaceIdle(t)
}
