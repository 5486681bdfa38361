package vimtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Issue 35 item 1: the plugin never runs a program from the workspace. With a folder of the
// workspace first on $PATH (direnv's `PATH_add bin`), a `claude-ide-bridge` or `claude` that
// Claude wrote there was what the plugin found and started; now the next entry's: Bin() skips
// the workspace, and claude is the program the bridge found (claudeCommand's argv[0]) in place
// of the default String terminal_cmd's first word.
func TestProgramsAreNeverTheWorkspaces(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	outside, marks := filepath.Join(root, "outside"), filepath.Join(root, "marks")
	os.Mkdir(outside, 0o755)
	os.Mkdir(marks, 0o755)
	script := func(path, body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(bridgeBin, filepath.Join(outside, "claude-ide-bridge")); err != nil {
		t.Fatal(err)
	}
	script(filepath.Join(outside, "claude"), "touch "+filepath.Join(marks, "claude")+"\nexec sleep 60")
	v := startVim(t, "let g:claude_ide_bridge_auto_start = 0")
	bin := filepath.Join(v.ws, "bin")
	os.Mkdir(bin, 0o755)
	for _, name := range []string{"claude-ide-bridge", "claude"} {
		script(filepath.Join(bin, name), "touch "+filepath.Join(marks, "workspace-"+name)+"\nexec sleep 60")
	}
	// The bridge started next inherits this $PATH: claude is looked up on it.
	v.ex("let $PATH = " + vimString(bin+string(os.PathListSeparator)+"bin"+string(os.PathListSeparator)+outside+string(os.PathListSeparator)+os.Getenv("PATH")))
	v.ex("unlet g:claude_ide_bridge_bin")
	if got := v.str("claude_ide_bridge#Bin()"); got != filepath.Join(outside, "claude-ide-bridge") {
		t.Errorf("Bin() = %q, want the one outside the workspace", got)
	}
	v.ex("ClaudeCode")
	t.Cleanup(func() { v.tryEval("execute('ClaudeCodeClose')") })
	if !poll(func() bool { _, err := os.Stat(filepath.Join(marks, "claude")); return err == nil }) {
		t.Errorf("claude outside the workspace did not run; screen:\n%s", v.screen())
	}
	for _, name := range []string{"claude-ide-bridge", "claude"} {
		if _, err := os.Stat(filepath.Join(marks, "workspace-"+name)); err == nil {
			t.Errorf("the workspace's bin/%s ran", name)
		}
	}
}
