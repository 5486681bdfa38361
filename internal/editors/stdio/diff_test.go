package stdio_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

type showDiff struct {
	TabName     string `json:"tabName"`
	FilePath    string `json:"filePath"`
	NewFilePath string `json:"newFilePath"`
	NewContents string `json:"newContents"`
	FileExists  bool   `json:"fileExists"`
	Proposal    uint64 `json:"proposal"`
}

// openDiff starts Claude's openDiff in the background; the answer arrives on the channel.
func openDiff(t *testing.T, c *probe.Client, path, contents, tab string) <-chan *probe.ToolResult {
	ch := make(chan *probe.ToolResult, 1)
	ctx := testbin.Ctx(t)
	go func() { ch <- openDiffResult(ctx, c, path, contents, tab) }()
	return ch
}

// openDiffResult is Claude's openDiff of contents (a string, or JSON already encoded) for path;
// a protocol error comes back as an error result saying so.
func openDiffResult(ctx context.Context, c *probe.Client, path string, contents any, tab string) *probe.ToolResult {
	r, err := c.Tool(ctx, "openDiff", map[string]any{"old_file_path": path, "new_file_path": path,
		"new_file_contents": contents, "tab_name": tab})
	if err != nil {
		r = &probe.ToolResult{IsError: true}
		r.Content = append(r.Content, struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{"text", "protocol error: " + err.Error()})
	}
	return r
}

func await(t *testing.T, ch <-chan *probe.ToolResult) *probe.ToolResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-testbin.Ctx(t).Done():
		t.Fatal("openDiff never answered")
		return nil
	}
}

func nextShowDiff(t *testing.T, s *sidecar) showDiff {
	t.Helper()
	var p showDiff
	json.Unmarshal(s.next(t, "showDiff").Params, &p)
	return p
}

func tabOf(c call) string {
	var p struct{ TabName string }
	json.Unmarshal(c.Params, &p)
	return p.TabName
}

func TestDiffAccepted(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		c := claude(t, s.initialize(t, nil))
		path := s.writeFile(t, "a.txt", "old\n")
		tab := "✻ [Claude Code] a.txt (aa7495) ⧉"
		res := openDiff(t, c, path, "new\n", tab)

		sd := nextShowDiff(t, s)
		n := sd.Proposal
		if sd != (showDiff{tab, path, path, "new\n", true, n}) || n == 0 {
			t.Errorf("showDiff = %+v", sd)
		}
		var st struct {
			Diffs []struct{ TabName, FilePath, State string }
		}
		if err := s.call(t, "status", nil, &st); err != nil || len(st.Diffs) != 1 || st.Diffs[0].State != "pending" || st.Diffs[0].FilePath != path {
			t.Errorf("status while pending = %+v, %v", st, err)
		}
		// "The bridge answers Claude FILE_SAVED + contents; the editor must not write the file
		// (Claude writes it)."
		if err := s.call(t, "diffAccepted", map[string]any{"tabName": tab, "proposal": n, "contents": "new, edited\n"}, nil); err != nil {
			t.Fatal(err)
		}
		r := await(t, res)
		if r.IsError || !slices.Equal(r.Texts(), []string{"FILE_SAVED", "new, edited\n"}) {
			t.Errorf("openDiff = %+v", r)
		}
		if b, _ := os.ReadFile(path); string(b) != "old\n" {
			t.Errorf("the bridge wrote the file: %q", b)
		}
		if err := s.call(t, "status", nil, &st); err != nil || len(st.Diffs) != 1 || st.Diffs[0].State != "accepted" {
			t.Errorf("status after accept = %+v, %v", st, err)
		}
		// "The diff view stays open until closeDiff": Claude's close_tab ends it.
		if r := tool(t, c, "close_tab", map[string]any{"tab_name": tab}); r.Texts()[0] != "TAB_CLOSED" {
			t.Errorf("close_tab = %+v", r)
		}
		if got := tabOf(s.next(t, "closeDiff")); got != tab {
			t.Errorf("closeDiff for %q, want %q", got, tab)
		}
		// "-32001 when no pending diff has that name."
		if err := s.call(t, "diffAccepted", map[string]any{"tabName": tab, "proposal": n, "contents": "x"}, nil); rpcCode(err) != jsonrpc.CodeUnknownDiff {
			t.Errorf("diffAccepted after close: %v, want -32001", err)
		}
		if err := s.call(t, "diffAccepted", map[string]any{"tabName": tab}, nil); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("diffAccepted without contents or proposal: %v, want -32602", err)
		}
	})
}

func TestDiffRejected(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		c := claude(t, s.initialize(t, nil))
		path := s.writeFile(t, "b.txt", "old\n")
		tab := "✻ [Claude Code] b.txt (bb0001) ⧉"
		res := openDiff(t, c, path, "new\n", tab)
		n := nextShowDiff(t, s).Proposal
		// "diffRejected ... Result {}; The bridge follows with closeDiff."
		if err := s.call(t, "diffRejected", map[string]any{"tabName": tab, "proposal": n}, nil); err != nil {
			t.Fatal(err)
		}
		if r := await(t, res); !slices.Equal(r.Texts(), []string{"DIFF_REJECTED", tab}) {
			t.Errorf("openDiff = %+v", r)
		}
		if got := tabOf(s.next(t, "closeDiff")); got != tab {
			t.Errorf("closeDiff for %q", got)
		}
		if err := s.call(t, "diffRejected", map[string]any{"tabName": tab, "proposal": n}, nil); rpcCode(err) != jsonrpc.CodeUnknownDiff {
			t.Errorf("diffRejected of an unknown tab: %v, want -32001", err)
		}
	})
}

func TestNewFileDiff(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line")
	c := claude(t, s.initialize(t, nil))
	path := s.ws + "/new.txt"
	res := openDiff(t, c, path, "hello\n", "new-tab")
	// "fileExists": the proposal is for a file that does not exist yet (Claude's Write).
	if sd := nextShowDiff(t, s); sd.FileExists || sd.FilePath != path {
		t.Errorf("showDiff = %+v", sd)
	}
	tool(t, c, "closeAllDiffTabs", nil)
	if r := await(t, res); r.Texts()[0] != "DIFF_REJECTED" {
		t.Errorf("openDiff closed by closeAllDiffTabs = %+v, want DIFF_REJECTED", r)
	}
	s.next(t, "closeDiff")
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the bridge created %s", path)
	}
}

func TestShowDiffRefused(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		c := claude(t, s.initialize(t, nil))
		path := s.writeFile(t, "c.txt", "old\n")
		msg := "c.txt has unsaved changes; save or discard them first"
		s.answer("showDiff", func(context.Context, json.RawMessage) (any, error) {
			return nil, jsonrpc.Errorf(jsonrpc.CodeServerError, "%s", msg)
		})
		// "An editor answers a bridge request it cannot perform with any JSON-RPC error; its
		// message reaches Claude as the tool error"
		r := await(t, openDiff(t, c, path, "new\n", "tab-c"))
		if !r.IsError || len(r.Texts()) != 1 || !strings.Contains(r.Texts()[0], msg) {
			t.Errorf("openDiff refused by the editor = %+v, want isError with %q", r, msg)
		}
		var st struct{ Diffs []any }
		if s.call(t, "status", nil, &st); len(st.Diffs) != 0 {
			t.Errorf("a refused diff stays: %+v", st)
		}
	})
}

func TestCloseAllDiffs(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		c := claude(t, s.initialize(t, nil))
		a := s.writeFile(t, "a.txt", "a\n")
		b := s.writeFile(t, "b.txt", "b\n")
		pendingRes := openDiff(t, c, a, "a2\n", "tab-a")
		nextShowDiff(t, s)
		acceptedRes := openDiff(t, c, b, "b2\n", "tab-b")
		n := nextShowDiff(t, s).Proposal
		if err := s.call(t, "diffAccepted", map[string]any{"tabName": "tab-b", "proposal": n, "contents": "b3\n"}, nil); err != nil {
			t.Fatal(err)
		}
		await(t, acceptedRes)
		// Claude has not written b.txt yet, so its accepted text exists only in the diff.
		// "for every accepted diff whose file does not yet hold the accepted text it first sends
		// setBufferText (so the edit is never lost), then closeDiff for each."
		var res struct {
			Closed   int      `json:"closed"`
			Restored []string `json:"restored"`
		}
		if err := s.call(t, "closeAllDiffs", map[string]any{}, &res); err != nil {
			t.Fatal(err)
		}
		if res.Closed != 2 || !slices.Equal(res.Restored, []string{b}) {
			t.Errorf("closeAllDiffs = %+v, want 2 closed and %s restored", res, b)
		}
		if r := await(t, pendingRes); !slices.Equal(r.Texts(), []string{"DIFF_REJECTED", "tab-a"}) {
			t.Errorf("pending openDiff = %+v", r)
		}
		var seq []string
		for _, cl := range s.collect(t, 3, "setBufferText", "closeDiff") {
			var p struct{ TabName, FilePath, Text string }
			json.Unmarshal(cl.Params, &p)
			seq = append(seq, cl.Method+" "+p.TabName+p.FilePath+" "+p.Text)
		}
		// The accepted text reaches the buffer before its diff view closes.
		restore, closeB := slices.Index(seq, "setBufferText "+b+" b3\n"), slices.Index(seq, "closeDiff tab-b ")
		if restore < 0 || closeB < 0 || restore > closeB || !slices.Contains(seq, "closeDiff tab-a ") {
			t.Errorf("the editor got %q; want setBufferText of b before closeDiff tab-b, and closeDiff tab-a", seq)
		}
		if st := s.status(t); len(st.Diffs) != 0 {
			t.Errorf("diffs left: %+v", st.Diffs)
		}
	})
}

func TestAcceptedDiffWithoutSetBufferText(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "header")
	c := claude(t, s.initWith(t, map[string]bool{"setBufferText": false}))
	path := s.writeFile(t, "a.txt", "a\n")
	res := openDiff(t, c, path, "a2\n", "tab-a")
	n := nextShowDiff(t, s).Proposal
	if err := s.call(t, "diffAccepted", map[string]any{"tabName": "tab-a", "proposal": n, "contents": "a3\n"}, nil); err != nil {
		t.Fatal(err)
	}
	await(t, res)
	// "An accepted diff whose text cannot be put anywhere ... stays open, and the answer is
	// -32000 naming it"
	err := s.call(t, "closeAllDiffs", nil, nil)
	if rpcCode(err) != jsonrpc.CodeServerError || !strings.Contains(err.Error(), "tab-a") {
		t.Errorf("closeAllDiffs = %v, want -32000 naming tab-a", err)
	}
	if st := s.status(t); len(st.Diffs) != 1 || st.Diffs[0].State != "accepted" {
		t.Errorf("status = %+v, want the accepted diff kept", st)
	}
	s.noCall(t, "setBufferText", "closeDiff")
	// Once Claude has written the file, closing the view loses nothing: diffRejected closes it.
	os.WriteFile(path, []byte("a3\n"), 0o644)
	if err := s.call(t, "diffRejected", map[string]any{"tabName": "tab-a", "proposal": n}, nil); err != nil {
		t.Fatal(err)
	}
	if got := tabOf(s.next(t, "closeDiff")); got != "tab-a" {
		t.Errorf("closeDiff for %q", got)
	}
	if st := s.status(t); len(st.Diffs) != 0 {
		t.Errorf("diffs left: %+v", st.Diffs)
	}
}
