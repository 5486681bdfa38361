package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

// Issue 26 item 1: Claude started with exactly the command `serve` prints, on a fresh config
// (whose own default is auto mode, which never calls openDiff), gets its Edit as a diff in
// serve: the printed line carries --permission-mode default.
func TestServePrintedCommandShowsDiff(t *testing.T) {
	t.Parallel()
	s := emptySession(t, map[string]string{"hello.txt": "hello world\n"})
	f := s.path("hello.txt")
	p, cmd := startBridge(t, s.Config, "--workspace", s.Project, "--auto", "accept")
	// serve's line names the claude it finds on $PATH outside the workspace (claudecmd);
	// startBridge puts CLAUDE_BIN's folder there.
	out, port := s.runServe(p, cmd)
	cli := claudeBin(t)
	var line string
	re := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(cli) + ` (.*)$`)
	waitUntil(s.bound(stepBound), t, "serve's claude line", func() bool {
		m := re.FindStringSubmatch(out.String())
		if m != nil {
			line = m[1]
		}
		return m != nil
	})
	if !strings.Contains(line, "--permission-mode default") {
		t.Fatalf("serve printed %q", line)
	}
	s.serveClaude(p, cliOptions{Port: port, Args: strings.Fields(line), AsGiven: true})
	s.CLI.WaitText(s.bound(stepBound), "? for shortcuts")

	s.API.Push(fakeapi.Edit(f, "world", "there", "EDITED")...)
	s.prompt("edit hello")
	s.waitMain(3)
	if got := diffAnswers(readTrace(t, p.Trace)); len(got) != 1 {
		t.Errorf("openDiff answers %q, want the Edit as one diff", got)
	}
	if got := readFile(t, f); got != "hello there\n" {
		t.Errorf("file %q after the accepted diff", got)
	}
}

// waitUntil polls cond every 20 ms until it holds or ctx ends.
func waitUntil(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
