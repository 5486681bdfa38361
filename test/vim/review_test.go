package vimtest

import (
	"os"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// Issue 39 item 8: Vim had "no review command". :ClaudeCodeReview shows, in a tab page, what the
// last turn of Claude changed (`claude-ide-bridge review` against Vim's bridge), as a diff.
func TestReviewCommand(t *testing.T) {
	t.Parallel()
	v := startVim(t)
	c := v.claude()
	port := v.state().Port
	path := v.file("a.txt", "old line\n")
	hook := func(ev map[string]any) { t.Helper(); harness.QuietHook(t, bridgeBin, v.cfg, port, ev) }
	hook(map[string]any{"hook_event_name": "SessionStart", "session_id": "s1", "cwd": v.ws, "source": "startup"})
	hook(map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": "p"})
	// As the CLI does before an Edit/Write: getDiagnostics of the file, when the bridge reads it.
	if _, err := c.Tool(testbin.Ctx(t), "getDiagnostics", map[string]any{"uri": "file://" + path}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte("new line by claude\n"), 0o644)
	var out string
	if !poll(func() bool {
		v.ex("ClaudeCodeReview")
		v.waitEval(`"finished"`, `term_getstatus(term_list()[-1])`)
		out = v.str(`join(getbufline(term_list()[-1], 1, "$"), "\n")`)
		v.ex("bwipeout!")
		return strings.Contains(out, "+new line by claude") && strings.Contains(out, "-old line")
	}) {
		t.Fatalf("the review tab does not show the turn's change:\n%s", out)
	}
}
