package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

// The model's own mcp__ide__getDiagnostics goes through the bridge to the
// editor and its answer comes back as the tool result.
func TestModelCallsGetDiagnostics(t *testing.T) {
	t.Parallel()
	s := newSession(t, map[string]string{"main.go": "package main\n"})
	f := s.path("main.go")
	s.Ed.Answer("getDiagnostics", func(json.RawMessage) (any, error) {
		return map[string]any{"files": []any{map[string]any{"filePath": f, "diagnostics": []any{map[string]any{
			"message": "E2E: missing func main", "severity": "Warning", "source": "e2e-lint",
			"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 7}},
		}}}}}, nil
	})
	s.API.Push(fakeapi.Tool("mcp__ide__getDiagnostics", map[string]any{}), fakeapi.Text("DIAGS SEEN"))
	first := s.prompt("check diagnostics")
	// The CLI 2.1.328 defers MCP tools: the model sees the name in the
	// deferred-tools list, not in "tools", and may call it directly.
	if !strings.Contains(first.Text(), "mcp__ide__getDiagnostics") {
		t.Errorf("the model was not told about mcp__ide__getDiagnostics")
	}
	s.CLI.Choose(s.bound(stepBound), "Do you want to proceed?", "1")
	tr := lastToolResult(t, s.waitMain(2))
	if tr.IsError || !strings.Contains(tr.Content, "E2E: missing func main") || !strings.Contains(tr.Content, "file://"+f) {
		t.Errorf("getDiagnostics tool result %+v", tr)
	}
	s.Ed.Wait(s.bound(stepBound), "getDiagnostics", nil)
}

// Protocol: "When stdin reaches EOF ... the bridge closes its WebSocket
// clients with 1001, settles pending diffs (never as an accept), removes its
// lock file and exits". The CLI's pending openDiff gets a non-accept answer
// and the file stays as it was.
func TestEditorExitSettlesPendingDiff(t *testing.T) {
	t.Parallel()
	s := newSession(t, map[string]string{"hello.txt": "hello world\n"})
	f := s.path("hello.txt")
	s.API.Push(edit(f, "world", "there", "AFTER EXIT")...)
	s.prompt("edit hello")
	s.showDiff(f)

	s.Ed.conn.Close() // the editor goes away: stdin EOF
	select {
	case <-s.Ed.bridge.exited:
	case <-s.bound(stepBound).Done():
		t.Fatalf("bridge still running after stdin EOF")
	}
	if exists(s.Ed.Init.LockPath) {
		t.Errorf("lock file %s left behind", s.Ed.Init.LockPath)
	}
	fs := readTrace(t, s.Ed.bridge.Trace)
	answers := diffAnswers(fs)
	if len(answers) != 1 {
		t.Fatalf("openDiff answers %q: the pending diff was not settled before the close", answers)
	}
	if answers[0] == "FILE_SAVED" || answers[0] == "TAB_CLOSED" {
		t.Errorf("pending diff settled as an accept (%q) on shutdown", answers[0])
	}
	// Whatever the CLI does next (abort, or its own terminal prompt), the
	// file is not written: answer "No" if it asks.
	ctx := s.bound(stepBound)
	if err := s.CLI.scr.waitFor(ctx, "the CLI to settle", func(sc *screen) bool {
		return sc.containsLocked("Rejected update to hello.txt") || sc.containsLocked("Do you want to make this edit")
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.CLI.scr.Text(), "Do you want to make this edit") {
		s.CLI.Choose(ctx, "Do you want to make this edit", "3") // "3. No"
	}
	if got := readFile(t, f); got != "hello world\n" {
		t.Errorf("file %q after the editor left, want it unchanged", got)
	}
}
