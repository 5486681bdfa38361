package nvimtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Issue 35 item 1: the plugin never runs a program from the workspace. With a folder of the
// workspace first on $PATH (a direnv `PATH_add bin`), a `claude-ide-bridge` or `claude` that
// Claude wrote there was what the plugin started; now the next entry's.
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
	script(filepath.Join(outside, "claude"), "touch "+filepath.Join(marks, "claude")+"\nexec cat")
	var bin string
	e := newEnvBefore(t, map[string]any{"bin": "", "model_tools": false}, func(e *env) {
		bin = filepath.Join(e.proj, "bin")
		os.Mkdir(bin, 0o755)
		for _, name := range []string{"claude-ide-bridge", "claude"} {
			script(filepath.Join(bin, name), "touch "+filepath.Join(marks, "workspace-"+name)+"\nexec cat")
		}
		t.Setenv("PATH", bin+string(os.PathListSeparator)+outside+string(os.PathListSeparator)+os.Getenv("PATH"))
	})
	var got string
	e.n.luaInto(t, &got, `return require("claude-ide-bridge").bin()`)
	if got != filepath.Join(outside, "claude-ide-bridge") {
		t.Errorf("bin() = %q, want the one outside the workspace", got)
	}
	e.n.ex(t, "ClaudeCode")
	waitFor(t, "claude outside the workspace", func() bool { _, err := os.Stat(filepath.Join(marks, "claude")); return err == nil })
	e.n.ex(t, "ClaudeCodeClose")
	for _, name := range []string{"claude-ide-bridge", "claude"} {
		if _, err := os.Stat(filepath.Join(marks, "workspace-"+name)); err == nil {
			t.Errorf("the workspace's bin/%s ran", name)
		}
	}
}
