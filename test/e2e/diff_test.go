package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

// Phrases the CLI 2.1.328 sends the model, found in its recorded requests.
const (
	editedOK     = "has been updated successfully"
	createdOK    = "File created successfully at"
	userModified = "The user modified your proposed changes before accepting them."
	userRejected = "The user doesn't want to proceed with this tool use"
	staleFile    = "File content has changed since it was last read"
)

// openDiffAnswer returns the text blocks the bridge answered the CLI's
// openDiff for tab with, waiting for the answer to appear in the trace.
func (s *session) openDiffAnswer(tab string) []string {
	s.t.Helper()
	var texts []string
	waitTrace(s.bound(stepBound), s.t, s.Ed.bridge.Trace, "the openDiff answer for "+tab, func(fs []frame) bool {
		for _, f := range toolCalls(fs, "openDiff") {
			if _, args := f.tool(); args["tab_name"] == tab {
				if r, ok := response(fs, f); ok {
					texts = resultTexts(r)
					return true
				}
			}
		}
		return false
	})
	return texts
}

// waitCloseTab waits for the CLI's close_tab for tab in the trace.
func (s *session) waitCloseTab(tab string) {
	s.t.Helper()
	waitTrace(s.bound(stepBound), s.t, s.Ed.bridge.Trace, "close_tab "+tab, func(fs []frame) bool {
		for _, f := range toolCalls(fs, "close_tab") {
			if _, args := f.tool(); args["tab_name"] == tab {
				return true
			}
		}
		return false
	})
}

func (s *session) waitCloseDiff(tab string) {
	s.t.Helper()
	s.Ed.Wait(s.bound(stepBound), "closeDiff", func(p map[string]any) bool { return p["tabName"] == tab })
}

// lastToolResult returns the single tool_result of a main request.
func lastToolResult(t *testing.T, r fakeapi.Request) fakeapi.ToolResult {
	t.Helper()
	trs := r.ToolResults()
	if len(trs) != 1 {
		t.Fatalf("request #%d carries %d tool results, want 1:\n%s", r.Seq, len(trs), r.LastUserText())
	}
	return trs[0]
}

// (b) Accepted as proposed in the editor: the CLI writes the file, the
// bridge does not.
func TestEditAccepted(t *testing.T) {
	t.Parallel()
	s, f, d := helloDiff(t, "EDIT ACCEPTED")
	tab := str(d.Params["tabName"])
	if got := str(d.Params["newContents"]); got != "hello there\n" {
		t.Fatalf("showDiff newContents %q", got)
	}
	if d.Params["fileExists"] != true || str(d.Params["newFilePath"]) != f || tab == "" {
		t.Errorf("showDiff params %v", d.Params)
	}
	// Protocol: "Never write filePath" and facts: "The CLI writes the file itself."
	if got := readFile(t, f); got != "hello world\n" {
		t.Fatalf("file changed while the diff is pending: %q", got)
	}
	s.accept(d, "hello there\n")
	// Facts: accepted "[{text:"FILE_SAVED"}, {text:<final file contents>}]".
	if got := s.openDiffAnswer(tab); len(got) != 2 || got[0] != "FILE_SAVED" || got[1] != "hello there\n" {
		t.Errorf("openDiff answered %q, want [FILE_SAVED, contents]", got)
	}
	tr := lastToolResult(t, s.waitMain(3))
	// Facts: "The server must NOT write it (if it does, the model gets "File
	// content has changed since it was last read")".
	if !strings.Contains(tr.Content, editedOK) || strings.Contains(tr.Content, staleFile) || tr.IsError {
		t.Errorf("Edit tool result %+v", tr)
	}
	if strings.Contains(tr.Content, userModified) {
		t.Errorf("unchanged proposal reported as modified: %q", tr.Content)
	}
	if got := readFile(t, f); got != "hello there\n" {
		t.Errorf("file after accept %q, want the proposal", got)
	}
	s.CLI.WaitText(s.bound(stepBound), "EDIT ACCEPTED")
	// Facts: "close_tab {tab_name}: twice after every openDiff result";
	// protocol: "showDiff → (diffAccepted | diffRejected)? → closeDiff".
	s.waitCloseTab(tab)
	s.waitCloseDiff(tab)
}

// (c) Accepted with the user's own edits: the file holds the user's text and
// the model is told.
func TestEditAcceptedWithUserEdits(t *testing.T) {
	t.Parallel()
	s, f, d := helloDiff(t, "EDIT MODIFIED")
	tab := str(d.Params["tabName"])
	const mine = "hello there\nand a line the user typed\n"
	s.accept(d, mine)
	if got := s.openDiffAnswer(tab); len(got) != 2 || got[0] != "FILE_SAVED" || got[1] != mine {
		t.Errorf("openDiff answered %q, want [FILE_SAVED, the user's text]", got)
	}
	tr := lastToolResult(t, s.waitMain(3))
	if !strings.Contains(tr.Content, userModified) || strings.Contains(tr.Content, staleFile) {
		t.Errorf("Edit tool result lacks %q: %+v", userModified, tr)
	}
	if got := readFile(t, f); got != mine {
		t.Errorf("file %q, want the user's text %q", got, mine)
	}
	s.waitCloseDiff(tab)
}

// (d) Rejected in the editor: the file is unchanged and the turn ends
// without the model being asked again.
func TestEditRejected(t *testing.T) {
	t.Parallel()
	s, f, d := helloDiff(t, "AFTER REJECT")
	tab := str(d.Params["tabName"])
	if err := s.Ed.Call(s.bound(stepBound), "diffRejected", map[string]any{"tabName": tab, "proposal": d.Params["proposal"]}, nil); err != nil {
		t.Fatalf("diffRejected: %v", err)
	}
	// Facts: "[{text:"DIFF_REJECTED"}, {text:<tab_name>}]: denied; the turn is aborted."
	if got := s.openDiffAnswer(tab); len(got) != 2 || got[0] != "DIFF_REJECTED" || got[1] != tab {
		t.Errorf("openDiff answered %q, want [DIFF_REJECTED, tab]", got)
	}
	s.waitCloseDiff(tab)
	// The aborted turn leaves the CLI at its prompt; the next request the
	// model gets is the user's next prompt, carrying the rejection.
	s.CLI.WaitText(s.bound(stepBound), "Rejected update to hello.txt")
	r := s.prompt("next prompt after reject")
	if r.Turn != 2 || !strings.Contains(r.LastUserText(), "next prompt after reject") {
		t.Errorf("request after the rejection is not the next prompt:\n%s", r.LastUserText())
	}
	if !strings.Contains(r.Text(), userRejected) {
		t.Errorf("model never told %q", userRejected)
	}
	if got := readFile(t, f); got != "hello world\n" {
		t.Errorf("file after reject %q, want it unchanged", got)
	}
}

// (e) Write of a new file through the editor.
func TestWriteNewFile(t *testing.T) {
	t.Parallel()
	s := newSession(t, nil)
	f := s.path("new.txt")
	// No trailing newline: CLI 2.1.328 drops it from a FILE_SAVED Write
	// (the bridge answered "brand new\n", the file got "brand new"); with
	// the terminal's "Yes" it keeps it. Not the bridge's doing.
	s.API.Push(fakeapi.Tool("Write", map[string]any{"file_path": f, "content": "brand new"}), fakeapi.Text("WRITE DONE"))
	s.prompt("create new.txt")

	d := s.showDiff(f)
	tab := str(d.Params["tabName"])
	if d.Params["fileExists"] != false || str(d.Params["newContents"]) != "brand new" {
		t.Errorf("showDiff params %v", d.Params)
	}
	if exists(f) {
		t.Fatalf("%s exists before the diff was accepted", f)
	}
	s.accept(d, "brand new")
	tr := lastToolResult(t, s.waitMain(2))
	if !strings.Contains(tr.Content, createdOK) || tr.IsError {
		t.Errorf("Write tool result %+v", tr)
	}
	if got := readFile(t, f); got != "brand new" {
		t.Errorf("new file holds %q", got)
	}
	s.waitCloseDiff(tab)
}

// (e2) A big file: its text passes the bridge by reference, not copied (jsonrpc.Pieces), so the
// editor's showDiff is written in pieces and the FILE_SAVED answer reaches the CLI as one
// WebSocket message in several frames, which the CLI must reassemble into the same text.
func TestWriteBigNewFile(t *testing.T) {
	t.Parallel()
	s := newSession(t, nil)
	f := s.path("big.go")
	var b strings.Builder
	for i := 0; b.Len() < 300<<10; i++ { // over 64 KiB, with escapes and non-ASCII throughout
		fmt.Fprintf(&b, "\tif x%d := f(\"héllo\\n\", %d); x%d < limit { // → 日本\n", i, i, i)
	}
	content := b.String() + "// end" // no trailing newline (see TestWriteNewFile)
	s.API.Push(fakeapi.Tool("Write", map[string]any{"file_path": f, "content": content}), fakeapi.Text("BIG WRITE DONE"))
	s.prompt("create big.go")

	d := s.showDiff(f)
	tab := str(d.Params["tabName"])
	if got := str(d.Params["newContents"]); got != content {
		t.Fatalf("showDiff newContents: %d bytes, want the %d proposed", len(got), len(content))
	}
	s.accept(d, content)
	if got := s.openDiffAnswer(tab); len(got) != 2 || got[0] != "FILE_SAVED" || got[1] != content {
		t.Errorf("openDiff answered %d blocks, want [FILE_SAVED, the %d-byte text]", len(got), len(content))
	}
	tr := lastToolResult(t, s.waitMain(2))
	if !strings.Contains(tr.Content, createdOK) || tr.IsError {
		t.Errorf("Write tool result %+v", tr)
	}
	if got := readFile(t, f); got != content {
		t.Errorf("the CLI wrote %d bytes, want the %d accepted", len(got), len(content))
	}
	s.waitCloseDiff(tab)
}

// (f) The user answers the CLI's own permission prompt while the diff is
// pending: the CLI sends close_tab, the bridge closes the editor's diff and
// settles it, never as an accept.
func TestTerminalAnswerWhileDiffPending(t *testing.T) {
	t.Parallel()
	s, f, d := helloDiff(t, "TERMINAL ACCEPTED")
	tab := str(d.Params["tabName"])
	s.CLI.Choose(s.bound(stepBound), "Do you want to make this edit", "1") // "❯ 1. Yes"
	s.waitCloseTab(tab)
	s.waitCloseDiff(tab)
	tr := lastToolResult(t, s.waitMain(3))
	if !strings.Contains(tr.Content, editedOK) {
		t.Errorf("Edit tool result %+v", tr)
	}
	if got := readFile(t, f); got != "hello there\n" {
		t.Errorf("file %q, want the proposal written by the CLI", got)
	}
	// Facts: "That pending openDiff is then never awaited again: the server
	// must close it and settle it itself (never as an accept)."
	fs := readTrace(t, s.Ed.bridge.Trace)
	for _, c := range toolCalls(fs, "openDiff") {
		if r, ok := response(fs, c); ok {
			if got := resultTexts(r); len(got) > 0 && (got[0] == "FILE_SAVED" || got[0] == "TAB_CLOSED") {
				t.Errorf("openDiff settled as an accept after close_tab: %s", r)
			}
		}
	}
	// Protocol: diffAccepted answers -32001 "when no pending diff has that name".
	err := s.Ed.Call(s.bound(stepBound), "diffAccepted", map[string]any{"tabName": tab, "proposal": d.Params["proposal"], "contents": "late\n"}, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeUnknownDiff {
		t.Errorf("late diffAccepted: %v, want error -32001", err)
	}
	if got := readFile(t, f); got != "hello there\n" {
		t.Errorf("file %q after a late diffAccepted", got)
	}
}

// (g) Facts: "closeAllDiffTabs {} at the start of every user prompt".
func TestCloseAllDiffTabsEachPrompt(t *testing.T) {
	t.Parallel()
	s := newSession(t, nil)
	s.API.Push(fakeapi.Text("FIRST ANSWER"), fakeapi.Text("SECOND ANSWER"))
	for i, p := range []string{"first prompt", "second prompt"} {
		s.prompt(p)
		waitTrace(s.bound(stepBound), t, s.Ed.bridge.Trace, "closeAllDiffTabs per prompt", func(fs []frame) bool {
			return len(toolCalls(fs, "closeAllDiffTabs")) >= i+1
		})
	}
	s.CLI.WaitText(s.bound(stepBound), "SECOND ANSWER")
	fs := readTrace(t, s.Ed.bridge.Trace)
	for _, c := range toolCalls(fs, "closeAllDiffTabs") {
		r, ok := response(fs, c)
		if !ok {
			t.Errorf("closeAllDiffTabs unanswered: %s", c)
			continue
		}
		if r.m.Error != nil || strings.Contains(string(r.m.Result), `"isError":true`) {
			t.Errorf("closeAllDiffTabs failed: %s", r)
		}
	}
}

// (j) Diagnostics: the CLI takes a baseline before the edit and reports
// what is new after it as <new-diagnostics>.
func TestNewDiagnostics(t *testing.T) {
	t.Parallel()
	s := newSession(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	f := s.path("main.go")
	// Like a real linter, the editor reports what the file on disk holds:
	// the CLI's baseline (before it writes) is clean, the edit adds an error.
	s.Ed.Answer("getDiagnostics", func(json.RawMessage) (any, error) {
		diags := []any{}
		if b, _ := os.ReadFile(f); strings.Contains(string(b), "x := 1") {
			diags = append(diags, map[string]any{
				"message": "E2E: x declared and not used", "severity": "Error", "source": "e2e-lint",
				"range": map[string]any{"start": map[string]any{"line": 2, "character": 14}, "end": map[string]any{"line": 2, "character": 15}},
			})
		}
		return map[string]any{"files": []any{map[string]any{"filePath": f, "diagnostics": diags}}}, nil
	})
	s.API.Push(fakeapi.Edit(f, "func main() {}", "func main() { x := 1 }", "DIAG DONE")...)
	s.prompt("add x")

	d := s.showDiff(f)
	s.accept(d, "package main\n\nfunc main() { x := 1 }\n")
	r := s.waitMain(3)
	// Facts: "New diagnostics reach the model as <new-diagnostics>."
	if !strings.Contains(r.Text(), "<new-diagnostics>") || !strings.Contains(r.Text(), "E2E: x declared and not used") {
		t.Errorf("model request lacks the new diagnostic:\n%s", r.LastUserText())
	}
	// Facts: getDiagnostics {uri:"file://<raw, unencoded path>"}; "Return
	// uri exactly as asked".
	fs := readTrace(t, s.Ed.bridge.Trace)
	sawURI := false
	for _, c := range toolCalls(fs, "getDiagnostics") {
		_, args := c.tool()
		uri, _ := args["uri"].(string)
		if uri == "" {
			continue
		}
		sawURI = true
		resp, ok := response(fs, c)
		if !ok {
			continue
		}
		var files []struct {
			URI string `json:"uri"`
		}
		if texts := resultTexts(resp); len(texts) == 1 {
			_ = json.Unmarshal([]byte(texts[0]), &files)
		}
		if len(files) != 1 || files[0].URI != uri {
			t.Errorf("getDiagnostics(%q) answered %s", uri, resp.Msg)
		}
	}
	if !sawURI {
		t.Errorf("the CLI never asked getDiagnostics for the file")
	}
}
