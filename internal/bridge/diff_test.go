package bridge_test

import (
	"context"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// The diff rules themselves are walked step by step against ide.Model in
// internal/ide/diffsteps_test.go. These tests check what only the sockets can: that each
// WebSocket connection is its own client, that the answers and the -32000 refusal cross the wire
// as the CLI reads them, and that a shutdown's DIFF_REJECTED reaches the client before its
// connection is closed.

// Spec 000: "Each WebSocket connection is a separate client. A diff belongs to the client whose
// openDiff call opened it." Facts: closeAllDiffTabs "must touch only the diffs this integration
// opened"; FILE_SAVED carries "<final file contents>"; a refusal is "error -32000".
func TestDiffOwnershipPerConnection(t *testing.T) {
	t.Parallel()
	b, ed, _ := startWatched(t)
	path, mtime := writeFile(t, b, "f.txt", "old\n")
	a, c := connect(t, b), connect(t, b)

	ans := openDiffAsync(testbin.Ctx(t), a, path, "new\n", "T")
	p := recv(t, ed.shown, "showDiff")
	wantText("CLOSED_0_DIFF_TABS")(t, tool(t, c, "closeAllDiffTabs", nil)) // another connection's prompt
	select {
	case r := <-ans:
		t.Fatalf("another connection's closeAllDiffTabs ended the diff: %+v", r)
	default:
	}
	if err := accept(b, p, "new, edited\n"); err != nil {
		t.Fatal(err)
	}
	if r := recv(t, ans, "openDiff answer"); r.err != nil || strings.Join(r.texts, "|") != "FILE_SAVED|new, edited\n" {
		t.Fatalf("got %+v, want FILE_SAVED with the final text", r)
	}
	if _, err := c.Tool(testbin.Ctx(t), "openDiff", map[string]any{"old_file_path": path, "new_file_path": path,
		"new_file_contents": "other\n", "tab_name": "T"}); rpcCode(err) != -32000 {
		t.Fatalf("another connection replacing the accepted diff: %v, want -32000", err)
	}
	wantText("TAB_CLOSED")(t, tool(t, c, "close_tab", map[string]any{"tab_name": "T"}))
	if d := b.Model.Diffs(); len(d) != 1 || d[0].State != "accepted" {
		t.Fatalf("diffs %+v, want T still accepted", d)
	}
	wantText("TAB_CLOSED")(t, tool(t, a, "close_tab", map[string]any{"tab_name": "T"}))
	if tab := recv(t, ed.closed, "closeDiff"); tab != "T" {
		t.Fatalf("closed %q, want T", tab)
	}
	untouched(t, path, "old\n", mtime)
}

// Facts: a pending openDiff must be settled "never as an accept"; docs/architecture.md: Close
// "settles diffs, closes clients with 1001". The DIFF_REJECTED answer must reach the CLI before
// its connection closes (Model.SetDrain), or it would see a failed call instead of a reject.
func TestShutdownAnswersPendingDiff(t *testing.T) {
	t.Parallel()
	b, ed, _ := startWatched(t)
	path, mtime := writeFile(t, b, "f.txt", "old\n")
	a := connect(t, b)
	ans := openDiffAsync(context.Background(), a, path, "new\n", "T")
	recv(t, ed.shown, "showDiff")
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if r := recv(t, ans, "openDiff answer"); r.err != nil || strings.Join(r.texts, "|") != "DIFF_REJECTED|T" {
		t.Fatalf("got %+v, want DIFF_REJECTED over the wire", r)
	}
	untouched(t, path, "old\n", mtime)
}
