package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// End to end with the real CLI against `serve --lsp .go=gopls`: the CLI's own diagnostics flow
// (facts: getDiagnostics {uri} before an edit, {} after it, "New diagnostics reach the model as
// <new-diagnostics>") reports the compile error a scripted Edit introduces, and the model's call
// to mcp__ide__getDiagnostics returns it.
func TestStandaloneGoplsDiagnostics(t *testing.T) {
	t.Parallel()
	gopls := harness.Gopls(t)
	s := emptySession(t, map[string]string{"go.mod": "module example.com/e2e\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"})
	f := s.path("main.go")
	p, cmd := startBridge(t, s.Config, "--workspace", s.Project, "--auto", "accept", "--lsp", ".go="+gopls)
	cmd.Env = append(cmd.Env, harness.GoEnv(t)...) // HOME is the test's config dir
	// The project is the user's: trusted, so the bridge starts gopls in it (issue 25).
	tr := exec.Command(bridgeBin, "trust", s.Project)
	tr.Env = cmd.Env
	if out, err := tr.CombinedOutput(); err != nil {
		t.Fatalf("trust: %v %s", err, out)
	}
	stdout, port := s.runServe(p, cmd)

	// The CLI gives its baseline call 500 ms (facts); gopls's first answer on a busy machine
	// takes longer, so a Claude-side client asks first, as an earlier edit would have.
	warm(t, s, port)

	s.serveClaude(p, cliOptions{Port: port})
	s.CLI.WaitText(s.bound(stepBound), "? for shortcuts")

	// The CLI skips its own IDE calls for a prompt typed too soon after the handshake (see
	// session.ready); closeAllDiffTabs, sent at every prompt once it takes part, says it does.
	for i := 1; ; i++ {
		s.API.Push(fakeapi.Text("READY"))
		s.prompt("are you there")
		if len(toolCalls(readTrace(t, p.Trace), "closeAllDiffTabs")) > 0 {
			break
		}
		if s.ctx.Err() != nil || i == 20 {
			t.Fatal("the CLI never made its own IDE calls (closeAllDiffTabs)")
		}
		time.Sleep(time.Second) // not an assertion: the next probe prompt
	}
	n := len(s.API.MainRequests())

	uri := "file://" + f
	s.API.Push(
		fakeapi.Tool("Read", map[string]any{"file_path": f}),
		fakeapi.Tool("Edit", map[string]any{"file_path": f, "old_string": "func main() {}", "new_string": "func main() {\n\tvar s string = 1\n\t_ = s\n}"}),
		// The IDE's tools are deferred: the model loads the schema first.
		fakeapi.Tool("ToolSearch", map[string]any{"query": "select:mcp__ide__getDiagnostics", "max_results": 1}),
		fakeapi.Tool("mcp__ide__getDiagnostics", map[string]any{"uri": uri}),
		fakeapi.Text("DIAGNOSED"),
	)
	s.prompt("break it")
	r := s.waitMain(n + 3)
	const msg = "cannot use 1 (untyped int constant) as string value in variable declaration"
	if !strings.Contains(r.Text(), "<new-diagnostics>") || !strings.Contains(r.Text(), msg) {
		t.Errorf("the model was not sent the new diagnostic as <new-diagnostics>:\n%s", r.LastUserText())
	}
	s.waitMain(n + 4)
	r = waitMainOrProceed(t, s, n+5)
	trs := r.ToolResults()
	if len(trs) != 1 || !strings.Contains(trs[0].Content, msg) || !strings.Contains(trs[0].Content, uri) {
		t.Errorf("mcp__ide__getDiagnostics gave the model %+v, want %q for %s", trs, msg, uri)
	}
	if !strings.Contains(stdout.String(), "language servers (getDiagnostics): "+gopls+" (.go)") {
		t.Errorf("serve did not say which language server it uses:\n%s", stdout.String())
	}
}

// warm asks getDiagnostics for main.go as a Claude-side client, until gopls has answered.
func warm(t *testing.T, s *session, port int) {
	t.Helper()
	l := testbin.ReadLock(t, filepath.Join(s.Config, "ide", strconv.Itoa(port)+".lock"))
	ctx := s.bound(stepBound)
	c, _, err := probe.Dial(ctx, port, l.AuthToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Handshake(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := c.Tool(ctx, "getDiagnostics", map[string]any{"uri": "file://" + s.path("main.go")})
	if err != nil || res.IsError {
		t.Fatalf("warming gopls: %+v, %v", res, err)
	}
}

// waitMainOrProceed waits for the nth main request, answering "Do you want to proceed?" (a
// permission prompt for an MCP tool) with Yes if the CLI asks.
func waitMainOrProceed(t *testing.T, s *session, n int) fakeapi.Request {
	t.Helper()
	ctx := s.bound(stepBound)
	for {
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		r, err := s.API.WaitMain(wctx, n)
		cancel()
		if err == nil {
			return r
		}
		if ctx.Err() != nil {
			t.Fatalf("main request %d never came: %v", n, err)
		}
		if strings.Contains(s.CLI.scr.Text(), "Do you want to proceed?") {
			s.CLI.Choose(ctx, "Do you want to proceed?", "1")
		}
	}
}
