package terminal

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
)

// Issue 35 item 1: no program the reviewer runs is the workspace's. With a workspace folder
// first on $PATH (a direnv `PATH_add bin`, node_modules/.bin), Claude could write bin/<name>
// and have it run: the --open-cmd editor is taken from the next $PATH entry, what it runs by
// name does not see the workspace's entry, and $EDITOR (run through sh) neither.
func TestProgramsAreNeverTheWorkspaces(t *testing.T) {
	ws, outside, marks := t.TempDir(), t.TempDir(), t.TempDir()
	script := func(dir, name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mark := func(name string) string { return "touch " + filepath.Join(marks, name) }
	bin := filepath.Join(ws, "bin")
	os.Mkdir(bin, 0o755)
	for _, name := range []string{"opener", "helper", "myeditor"} {
		script(bin, name, mark("workspace-"+name))
	}
	script(outside, "opener", mark("opener")+"\nhelper")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+outside+string(os.PathListSeparator)+os.Getenv("PATH"))

	in, typing := io.Pipe()
	scr := &tscreen{}
	ed := New(in, scr, Ask, false)
	ed.guard = 0
	o, err := ParseOpenCmd("opener {file}")
	if err != nil {
		t.Fatal(err)
	}
	ed.SetOpener(o, false)
	runRig(t, ed, ed, scr, ws, func() { typing.Close() })

	file := filepath.Join(ws, "a.txt")
	if _, err := ed.OpenFile(context.Background(), ide.OpenFileParams{FilePath: file}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for ents, _ := os.ReadDir(marks); len(ents) == 0; ents, _ = os.ReadDir(marks) {
		if time.Now().After(deadline) {
			t.Fatal("no opener ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The outside opener ran; the helper it ran by name was not found (sh's 127).
	if _, err := os.Stat(filepath.Join(marks, "opener")); err != nil {
		t.Errorf("the opener outside the workspace did not run: %v", err)
	} else {
		scr.waitFor(t, "--open-cmd opener: exit status 127", 1)
	}

	ed.editor = "myeditor"
	if _, err := ed.edit(ide.ShowDiffParams{FilePath: file, NewContents: ide.TextOf("x\n")}); err == nil {
		t.Errorf("$EDITOR myeditor, found only in the workspace, ran without error")
	}

	time.Sleep(50 * time.Millisecond) // not an assertion: lets a wrong program finish
	for _, name := range []string{"opener", "helper", "myeditor"} {
		if _, err := os.Stat(filepath.Join(marks, "workspace-"+name)); err == nil {
			t.Errorf("the workspace's bin/%s ran", name)
		}
	}
}
