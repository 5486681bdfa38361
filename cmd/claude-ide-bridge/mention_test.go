package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
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
	m, err := c.Next(testbin.Ctx(t), "at_mentioned")
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
	m, err = c.Next(testbin.Ctx(t), "selection_changed")
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

// Issue 28 item 7: "an excluded file's selection never reaches a Claude-side client, from ...
// serve/select". With serve's default globs, `select .env` and `mention` of a key are refused
// (exit 1, saying why) and nothing reaches Claude; --exclude replaces the default.
func TestSelectExcludedNeverReachesClaude(t *testing.T) {
	h := newHome(t)
	for name, text := range map[string]string{".env": "SECRET=hunter2\n", "id_ed25519": "KEY\n", "main.go": "package main\n", "notes.txt": "n\n"} {
		os.WriteFile(filepath.Join(h.ws, name), []byte(text), 0o600)
	}
	os.Symlink(filepath.Join(h.ws, ".env"), filepath.Join(h.ws, "config"))
	s := h.serve(t, nil)
	c := s.claude(t)
	for _, args := range [][]string{{"select", ".env:1"}, {"select", "config:1"}, {"mention", "id_ed25519"}} {
		_, errOut, code := h.command(t, h.ws, args...)
		if code != 1 || !strings.Contains(errOut, "excluded from sharing") {
			t.Fatalf("%v: exit %d, stderr %q; want 1 and why", args, code, errOut)
		}
	}
	// The next thing Claude gets is main.go's selection: nothing of .env came before it.
	if _, _, code := h.command(t, h.ws, "select", "main.go:1"); code != 0 {
		t.Fatalf("select main.go: exit %d", code)
	}
	m, err := c.Next(testbin.Ctx(t), "selection_changed")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m.Params), "main.go") {
		t.Fatalf("first selection_changed %s", m.Params)
	}

	// --exclude notes.txt: .env is shared then (the default replaced), notes.txt is not.
	h2 := newHome(t)
	os.WriteFile(filepath.Join(h2.ws, "notes.txt"), []byte("n\n"), 0o600)
	os.WriteFile(filepath.Join(h2.ws, ".env"), []byte("A=1\n"), 0o600)
	h2.serve(t, nil, "--exclude", "notes.txt")
	if _, errOut, code := h2.command(t, h2.ws, "select", "notes.txt:1"); code != 1 || !strings.Contains(errOut, "excluded") {
		t.Fatalf("--exclude notes.txt: select notes.txt exit %d %q", code, errOut)
	}
	if _, errOut, code := h2.command(t, h2.ws, "select", ".env:1"); code != 0 {
		t.Fatalf("--exclude notes.txt: select .env exit %d %q", code, errOut)
	}
}
