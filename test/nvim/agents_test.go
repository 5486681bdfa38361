package nvimtest

import (
	"os"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// geminiSession connects as the Gemini CLI to the companion of the bridge Neovim runs.
func geminiSession(t *testing.T, e *env) (*mcp.ClientSession, harness.GeminiNotes) {
	t.Helper()
	var pid int
	e.n.luaInto(t, &pid, `return vim.fn.getpid()`)
	return harness.GeminiSession(t, os.TempDir(), pid)
}

var agentCall = harness.AgentCall

// A Gemini proposal is a diff in Neovim like Claude's: :w accepts it and the CLI is sent the
// buffer's text, the user's edits kept; answered in Gemini's terminal first (closeDiff), the CLI
// gets the proposal buffer's text as it is then.
func TestGeminiDiffInNeovim(t *testing.T) {
	e := newEnv(t, nil, false)
	path := e.file(t, "a.txt", "old\n")
	cs, notes := geminiSession(t, e)
	tab := "[Gemini] " + path

	agentCall(t, cs, "openDiff", map[string]any{"filePath": path, "newContent": "new\n"})
	e.waitDiffs(t, tab+"=pending")
	// Issue 38 item 4: the view says whose proposal it is (Claude's says Claude: layout_test).
	if sl := e.n.str(t, `return vim.api.nvim_eval_statusline(vim.wo.statusline, { winid = 0, maxwidth = 120 }).str`); !strings.Contains(sl, "a.txt (Gemini's proposal)") {
		t.Errorf("the proposal's status line %q does not name Gemini", sl)
	}
	if tl := e.n.str(t, `return require("claude-ide-bridge.tabline").label(0)`); tl != "Diff a.txt (Gemini)" {
		t.Errorf("the diff's tab label %q, want Diff a.txt (Gemini)", tl)
	}
	// Only known names are shown; anything else the bridge sends is "An agent".
	if got := e.n.str(t, `local t = require("claude-ide-bridge.diff").agent_title
		return table.concat({t("qwen"), t(nil), t(vim.NIL), t("\27]0;x\7"), t(3)}, "|")`); got != "Qwen|Claude|Claude|An agent|An agent" {
		t.Errorf("agent titles %q", got)
	}
	e.n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, -1, false, {"new", "edited before :w"})`)
	e.n.ex(t, "write")
	if got := notes.Next(t, "ide/diffAccepted"); got["filePath"] != path || got["content"] != "new\nedited before :w\n" {
		t.Fatalf("ide/diffAccepted %v", got)
	}
	e.waitDiffs(t)
	if got := harness.FileText(path); got != "old\n" {
		t.Fatalf("Neovim or the bridge wrote the file: %q", got)
	}

	agentCall(t, cs, "openDiff", map[string]any{"filePath": path, "newContent": "second\n"})
	e.waitDiffs(t, tab+"=pending")
	e.n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, -1, false, {"second", "edited, answered in Gemini"})`)
	r := agentCall(t, cs, "closeDiff", map[string]any{"filePath": path, "suppressNotification": true})
	if txt := r.Content[0].(*mcp.TextContent).Text; txt != `{"content":"second\nedited, answered in Gemini\n"}` {
		t.Fatalf("closeDiff %s", txt)
	}
	e.waitDiffs(t)
}
