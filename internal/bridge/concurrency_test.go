package bridge_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// A panic in an editor call becomes an error answer (jsonrpc.Handler: "A panic becomes a
// CodeInternalError answer") and the bridge keeps serving that client and others.
func TestEditorPanicAnswersError(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	c := connect(t, b)
	_, err := c.Tool(testbin.Ctx(t), "checkDocumentDirty", map[string]any{"filePath": panicPath})
	if rpcCode(err) != -32603 || !strings.Contains(err.Error(), "panic") {
		t.Fatalf("got %v, want -32603 naming the panic", err)
	}
	wantText("TAB_CLOSED")(t, tool(t, c, "close_tab", map[string]any{"tab_name": "x"}))
	wantText("TAB_CLOSED")(t, tool(t, connect(t, b), "close_tab", map[string]any{"tab_name": "x"}))
}

// Spec 000: "The openDiff tool is blocking and waits for user interaction." While it waits, the
// same connection and other clients are still served (the CLI keeps calling getDiagnostics and
// close_tab while a diff is open).
func TestBlockingOpenDiffBlocksNothingElse(t *testing.T) {
	t.Parallel()
	b, ed := start(t)
	a := connect(t, b)
	path := filepath.Join(b.Model.Folders()[0], "f.txt")
	done := make(chan []string, 1)
	go func() {
		r, err := a.Tool(testbin.Ctx(t), "openDiff", map[string]any{"old_file_path": path, "new_file_path": path, "new_file_contents": "x\n", "tab_name": "T"})
		if err != nil {
			done <- []string{err.Error()}
			return
		}
		done <- r.Texts()
	}()
	p := <-ed.shown // the call is now waiting for the user

	if r := tool(t, a, "getWorkspaceFolders", nil); r.IsError {
		t.Fatalf("same connection: %+v", r)
	}
	bc := connect(t, b)
	if r := tool(t, bc, "getWorkspaceFolders", nil); r.IsError {
		t.Fatalf("second client: %+v", r)
	}
	select {
	case got := <-done:
		t.Fatalf("openDiff answered %v before the user decided", got)
	default:
	}
	if err := reject(b, p); err != nil {
		t.Fatal(err)
	}
	if got := <-done; strings.Join(got, "|") != "DIFF_REJECTED|T" {
		t.Fatalf("got %v", got)
	}
}
