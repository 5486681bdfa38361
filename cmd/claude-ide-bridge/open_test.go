package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// recorder writes a script that appends its arguments, NUL-separated, one run per line, to out.
func recorder(t *testing.T) (script, out string) {
	dir := t.TempDir()
	script, out = filepath.Join(dir, "fake-editor"), filepath.Join(dir, "argv")
	os.WriteFile(script, []byte("#!/bin/sh\nfor a; do printf '%s\\0' \"$a\"; done >> '"+out+"'\necho >> '"+out+"'\n"), 0o755)
	return script, out
}

// runs waits for n recorded runs and returns each run's argv.
func runs(t *testing.T, out string, n int) [][]string {
	t.Helper()
	deadline := time.Now().Add(testbin.Bound)
	for {
		data, _ := os.ReadFile(out)
		if strings.Count(string(data), "\n") >= n && strings.HasSuffix(string(data), "\n") {
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			var all [][]string
			for _, l := range lines {
				all = append(all, strings.Split(strings.TrimSuffix(l, "\x00"), "\x00"))
			}
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("the editor ran %q, want %d runs", data, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Issue 18 item 5: `serve --open-cmd` opens openFile's target in the user's editor. The path from
// Claude is one argument however hostile (no shell: nothing in it runs), at the line found.
func TestServeOpenCmd(t *testing.T) {
	h := newHome(t)
	script, out := recorder(t)
	name := "a b;$(touch pwned)'x.go"
	path := filepath.Join(h.ws, name)
	os.WriteFile(path, []byte("package a\n\nfunc A() {}\n"), 0o644)
	s := h.serve(t, nil, "--open-cmd", "'"+script+"' --at {line}:{column} {file}")
	c := s.claude(t)
	r, err := c.Tool(testbin.Ctx(t), "openFile", map[string]any{"filePath": path, "startText": "A()"})
	if err != nil || r.IsError {
		t.Fatalf("openFile: %v %v", r, err)
	}
	got := runs(t, out, 1)
	if want := [][]string{{"--at", "3:6", path}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("editor argv %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "pwned")); err == nil {
		t.Fatal("text from the path ran in a shell")
	}
	s.waitFor(t, reText("Claude opened "))
}

// Without --open-cmd, $VISUAL chooses (vim-like: +LINE FILE); --open-cmd ” only prints.
func TestServeOpenCmdFromVisual(t *testing.T) {
	h := newHome(t)
	script, out := recorder(t)
	dir := t.TempDir()
	vim := filepath.Join(dir, "vim") // named vim, so the default passes +LINE
	os.Symlink(script, vim)
	path := filepath.Join(h.ws, "m.go")
	os.WriteFile(path, []byte("package m\n"), 0o644)
	s := h.serve(t, []string{"VISUAL=" + vim + " -p"})
	c := s.claude(t)
	if _, err := c.Tool(testbin.Ctx(t), "openFile", map[string]any{"filePath": path}); err != nil {
		t.Fatal(err)
	}
	if got, want := runs(t, out, 1), [][]string{{"-p", "+1", path}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("editor argv %q, want %q", got, want)
	}

	h2 := newHome(t)
	script2, out2 := recorder(t)
	s2 := h2.serve(t, []string{"VISUAL=" + script2}, "--open-cmd", "")
	path2 := filepath.Join(h2.ws, "n.go")
	os.WriteFile(path2, []byte("package n\n"), 0o644)
	if _, err := s2.claude(t).Tool(testbin.Ctx(t), "openFile", map[string]any{"filePath": path2}); err != nil {
		t.Fatal(err)
	}
	s2.waitFor(t, reText("Claude opened "+path2))
	time.Sleep(200 * time.Millisecond) // what would have run by now, to be sure nothing did
	if data, err := os.ReadFile(out2); err == nil {
		t.Fatalf("--open-cmd '' still ran the editor: %q", data)
	}
}
