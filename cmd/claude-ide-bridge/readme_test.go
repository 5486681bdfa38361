package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Issue 28 item 9: "The README ... shows `make run` output that differs from what it prints."
// The README's block is what `serve` (make run's command) prints, line for line, with the
// README's example port, folder and config dir put in for this run's.
func TestReadmeMakeRunOutput(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// The trust question comes first, on a terminal, in an untrusted folder with servers found.
	_, q, _ := strings.Cut(string(b), "first asks whether to trust it")
	_, q, _ = strings.Cut(q, "```text\n")
	q, _, _ = strings.Cut(q, "```")
	if want := trustQuestion("/home/you/project", []string{"gopls"}, nil, nil) + "y\ntrusted (revoke: claude-ide-bridge trust --revoke /home/you/project)\n"; q != want {
		t.Errorf("README.md's trust question:\n%s\nserve asks:\n%s", q, want)
	}
	_, rest, ok := strings.Cut(string(b), "`make run` prints")
	if !ok {
		t.Fatal("README.md no longer says what `make run` prints")
	}
	_, rest, _ = strings.Cut(rest, "```text\n")
	block, _, _ := strings.Cut(rest, "```")
	if !strings.Contains(block, "export CLAUDE_CODE_SSE_PORT") {
		t.Fatalf("README.md's `make run` block shows no exports:\n%s", block)
	}
	mk, _ := os.ReadFile("../../Makefile")
	if !regexp.MustCompile(`(?m)^run: build\n\t\$\(BIN\) serve\n`).Match(mk) {
		t.Fatalf("make run no longer runs `serve` alone; update this test and the README:\n%s", mk)
	}

	h := newHome(t)
	s := h.serve(t, nil)
	s.waitFor(t, regexp.MustCompile(`claude .*\.mcp\.json\n`))
	port := strconv.Itoa(s.port)
	want := strings.NewReplacer("34567", port, "/home/you/project", h.ws, "/home/you/.claude", h.cfg, "/home/you/.local/bin", filepath.Join(h.dir, "bin")).Replace(block)
	got := s.out.String()
	if !strings.HasPrefix(got, want) {
		t.Fatalf("serve prints:\n%s\nthe README says (with this run's port and folders):\n%s", got, want)
	}
}
