package e2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

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

// Protocol: "When stdin reaches EOF ... with no Claude connected (or with
// --outlive 0 ...) the bridge closes its WebSocket clients with 1001, settles
// pending diffs (never as an accept), removes its lock file and exits". The
// CLI's pending openDiff gets a non-accept answer and the file stays as it was.
func TestEditorExitSettlesPendingDiff(t *testing.T) {
	t.Parallel()
	s := newSessionArgs(t, map[string]string{"hello.txt": "hello world\n"}, "--outlive", "0")
	f := s.path("hello.txt")
	s.API.Push(fakeapi.Edit(f, "world", "there", "AFTER EXIT")...)
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

// Protocol, "Attaching": the editor goes while the CLI is connected and its
// openDiff pending: the bridge stays (lock valid, the CLI connected, the diff
// pending); the next editor of the workspace attaches ("attached": true, the
// same port), is shown the proposal, accepts it, and the CLI writes the file.
func TestEditorExitWhileClaudeWaitsThenAttach(t *testing.T) {
	t.Parallel()
	s, f, first := helloDiff(t, "AFTER ATTACH")

	s.Ed.conn.Close() // the editor goes away: stdin EOF
	ctx := s.bound(stepBound)
	if err := s.CLI.scr.waitFor(ctx, "the CLI's own prompt while the diff waits", func(sc *screen) bool {
		return sc.containsLocked("Do you want to make this edit")
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Ed.bridge.exited:
		t.Fatal("the bridge ended with its editor while the CLI was connected")
	default:
	}
	// The bridge names itself in the lock once it listens for the next editor.
	if err := waitFor(s.bound(stepBound), func() bool {
		var l struct{ PID int }
		b, err := os.ReadFile(s.Ed.Init.LockPath)
		return err == nil && json.Unmarshal(b, &l) == nil && l.PID == s.Ed.bridge.cmd.Process.Pid
	}); err != nil {
		t.Fatalf("the lock does not name the bridge: %v", err)
	}

	ed := startEditor(t, s.Config, s.Project)
	if ed.Init.Port != s.Ed.Init.Port {
		t.Fatalf("the next editor got port %d, want the running bridge's %d", ed.Init.Port, s.Ed.Init.Port)
	}
	d := ed.Wait(s.bound(stepBound), "showDiff", func(p map[string]any) bool { return p["filePath"] == f })
	if d.Params["proposal"] != first.Params["proposal"] || d.Params["tabName"] != first.Params["tabName"] {
		t.Errorf("shown to the attached editor: %v, want the pending proposal %v", d.Params, first.Params)
	}
	if err := ed.Call(s.bound(stepBound), "diffAccepted", map[string]any{"tabName": d.Params["tabName"], "proposal": d.Params["proposal"]}, nil); err != nil {
		t.Fatalf("diffAccepted: %v", err)
	}
	if err := s.CLI.scr.waitFor(s.bound(stepBound), "the turn to end", func(sc *screen) bool { return sc.containsLocked("AFTER ATTACH") }); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, f); got != "hello there\n" {
		t.Errorf("file %q, want the accepted text written by the CLI", got)
	}
	// No reconnect in the trace: one WebSocket connection from start to end.
	conns := map[int]bool{}
	for _, fr := range readTrace(t, s.Ed.bridge.Trace) {
		conns[fr.Client] = true
	}
	if len(conns) != 1 {
		t.Errorf("the trace shows %d client connections, want 1 (no reconnect)", len(conns))
	}
}

// waitFor polls cond every 10 ms until it holds or ctx ends.
func waitFor(ctx context.Context, cond func() bool) error {
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}
