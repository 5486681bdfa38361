package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

func manyLines(n int, prefix string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %d\n", prefix, i)
	}
	return b.String()
}

// Issue 18 item 4: --auto prints the one-line summary and at most a screenful (24 lines when
// stdout is not a terminal), not the whole diff; the answer is FILE_SAVED as before.
func TestServeAutoPrintsSummaryAndAScreenful(t *testing.T) {
	h := newHome(t)
	path := filepath.Join(h.ws, "big.txt")
	os.WriteFile(path, []byte("first\n"), 0o644)
	s := h.serve(t, nil, "--auto", "accept")
	c := s.claude(t)
	got := await(t, openDiff(t, c, path, "first\n"+manyLines(1000, "line"), "tab-big"))
	if len(got) == 0 || got[0] != "FILE_SAVED" {
		t.Fatalf("openDiff answered %q", got)
	}
	s.waitFor(t, reText("auto: accepted"))
	out := s.out.String()
	for _, want := range []string{"Claude proposes a change to " + path + ": +1000 -0 in 1 hunk", "+line 1\n", "more lines not shown"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "+line 30\n") || strings.Contains(out, "line 1000") {
		t.Errorf("--auto printed more than a screenful:\n%s", out)
	}
}

// Issue 18 item 4, the pager path, in a real terminal (tmux) with a real less: a diff longer than
// the screen opens in `less -FRX` ($PAGER unset); after q, the summary and the question; y
// accepts.
func TestServePagerInTmux(t *testing.T) {
	tmux := harness.Need(t, "tmux", "the pager")
	harness.Need(t, "less", "the pager")
	h := newHome(t)
	h.trust(t, h.ws) // no trust prompt: this test is about the pager
	path := filepath.Join(h.ws, "long.txt")
	os.WriteFile(path, []byte("first\n"), 0o644)
	env := harness.ShellExports(h.env("TERM=xterm-256color", "GORACE=atexit_sleep_ms=0"), "PAGER", "LESS") + "unset PAGER LESS\n"
	tm := harness.StartTmux(t, tmux, 100, 30, env+"cd '"+h.ws+"'\nexec '"+bin+"' serve --workspace '"+h.ws+"'\n")
	tm.WaitScreen(".mcp.json\n") // the banner's last line: claude --mcp-config <file>
	s := &server{}
	locks, _ := filepath.Glob(filepath.Join(h.cfg, "ide", "*.lock"))
	if len(locks) != 1 {
		t.Fatalf("locks %v", locks)
	}
	fmt.Sscanf(filepath.Base(locks[0]), "%d.lock", &s.port)
	s.token = testbin.ReadLock(t, locks[0]).AuthToken
	c := s.claude(t)
	ch := openDiff(t, c, path, "first\n"+manyLines(200, "paged"), "tab-long")
	sc := tm.WaitScreen("+paged 20\n")
	if strings.Contains(sc, "Accept this change?") || strings.Contains(sc, "paged 200") {
		t.Fatalf("the pager did not hold the diff:\n%s", sc)
	}
	tm.Keys("q")
	sc = tm.WaitScreen("Accept this change?")
	if !strings.Contains(sc, "+200 -0 in 1 hunk") {
		t.Fatalf("no summary before the question:\n%s", sc)
	}
	tm.Keys("y", "Enter")
	if got := await(t, ch); len(got) == 0 || got[0] != "FILE_SAVED" {
		t.Fatalf("openDiff answered %q", got)
	}
}
