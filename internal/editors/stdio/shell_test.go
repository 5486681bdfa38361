package stdio_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// `claude-ide-bridge mention` and `select` reach a `serve --stdio` bridge too: they find it by
// the workspace the editor gave in initialize, through its lock file.
func TestShellMentionAndSelectReachStdioBridge(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line")
	r := s.initialize(t, nil)
	path := s.writeFile(t, "a.go", "package a\n\nfunc A() {}\n")
	c := claude(t, r)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(testbin.Ctx(t), bin, args...)
		cmd.Dir = t.TempDir() // not the workspace: the path alone finds the bridge
		cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+s.cfgDir, "GORACE=atexit_sleep_ms=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	// The CLI starts listening ~1 s after its handshake; until then a mention is queued for
	// it, so it arrives either way.
	out := run("mention", path+":2-3")
	if !strings.Contains(out, "a.go:2-3") {
		t.Fatalf("mention printed %q", out)
	}
	m, err := c.Next(testbin.Ctx(t), "at_mentioned")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"filePath":"` + path + `","lineStart":1,"lineEnd":2}`; string(m.Params) != want {
		t.Fatalf("at_mentioned %s, want %s", m.Params, want)
	}
	run("select", filepath.Join(s.ws, ".", "a.go")+":3")
	m, err = c.Next(testbin.Ctx(t), "selection_changed")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m.Params), `"text":"func A() {}"`) || !strings.Contains(string(m.Params), `"end":{"line":2,"character":11}`) {
		t.Fatalf("selection_changed %s", m.Params)
	}
}
