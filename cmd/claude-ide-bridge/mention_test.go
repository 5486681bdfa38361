package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `mention`/`select` against `serve`: found by the file's workspace, from any directory.
func TestMentionAndSelectReachServe(t *testing.T) {
	h := newHome(t)
	path := filepath.Join(h.ws, "main.go")
	os.WriteFile(path, []byte("package main\n\nfunc main() {}\n"), 0o644)
	s := h.serve(t, nil)
	c := s.claude(t)
	out, errOut, code := h.command(t, t.TempDir(), "mention", path+":3")
	if code != 0 || !strings.Contains(out, "main.go:3") {
		t.Fatalf("mention: %d %q %q", code, out, errOut)
	}
	m, err := c.Next(ctxT(t), "at_mentioned")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"filePath":"` + path + `","lineStart":2,"lineEnd":2}`; string(m.Params) != want {
		t.Fatalf("at_mentioned %s, want %s", m.Params, want)
	}
	// A relative path is taken against the command's own directory.
	if out, errOut, code = h.command(t, h.ws, "select", "main.go:1-3"); code != 0 {
		t.Fatalf("select: %d %q %q", code, out, errOut)
	}
	m, err = c.Next(ctxT(t), "selection_changed")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m.Params), `"text":"package main\n\nfunc main() {}"`) {
		t.Fatalf("selection_changed %s", m.Params)
	}
}

// Issue 18: "No bridge serving the path: exit 1 and say so." Also a file outside every served
// workspace, and bad arguments (exit 2).
func TestMentionWithoutBridge(t *testing.T) {
	h := newHome(t)
	path := filepath.Join(h.ws, "a.txt")
	os.WriteFile(path, []byte("a\n"), 0o644)
	_, errOut, code := h.command(t, h.ws, "mention", path)
	if code != 1 || !strings.Contains(errOut, "no running claude-ide-bridge serves "+path) {
		t.Fatalf("no bridge: exit %d, stderr %q", code, errOut)
	}
	h.serve(t, nil)
	other := filepath.Join(t.TempDir(), "b.txt")
	os.WriteFile(other, []byte("b\n"), 0o644)
	if _, errOut, code = h.command(t, h.ws, "select", other+":1"); code != 1 || !strings.Contains(errOut, "no running claude-ide-bridge serves") {
		t.Fatalf("outside the workspace: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code = h.command(t, h.ws, "select", path+":2"); code != 1 || !strings.Contains(errOut, "has 1 lines: there is no line 2") {
		t.Fatalf("past the end: exit %d, stderr %q", code, errOut)
	}
	if _, _, code = h.command(t, h.ws, "mention"); code != 2 {
		t.Fatalf("no argument: exit %d, want 2", code)
	}
}
