package vimtest

import (
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// Issue 39 item 8: Vim showed "no Claude state, no waiting notice". The bridge's claudeState
// notifications (from the hooks of a Claude it started) show in :ClaudeCodeStatus and
// claude_ide_bridge#State().claude; a session that starts waiting while the user is not in
// Claude's terminal is named in a warning; an ended session goes.
func TestClaudeStateInStatus(t *testing.T) {
	t.Parallel()
	// Permissions off, as in test/nvim's: the PermissionRequest hook below is about Claude's
	// state. With the popup on, nothing answered it: the hook was held for the bridge's 5
	// minutes (permission.Broker's Timeout), and the suite with it (373 s in CI).
	v := startVim(t, "let g:claude_ide_bridge_permissions = v:false")
	v.claude()
	port := v.state().Port
	hook := func(ev map[string]any) { t.Helper(); harness.QuietHook(t, bridgeBin, v.cfg, port, ev) }
	// :ClaudeCodeStatus asks the bridge: its answer comes later.
	wantStatus := func(want string) {
		t.Helper()
		v.ex("messages clear")
		v.ex("ClaudeCodeStatus")
		v.waitEval(`"`+want+`"`, `execute('messages')->split("\n")->filter({_, l -> l =~ '^claude: '})->get(-1, '')`)
	}
	hook(map[string]any{"hook_event_name": "SessionStart", "session_id": "s1", "cwd": v.ws, "source": "startup"})
	hook(map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": "secret prompt"})
	v.waitEval(`[{"state": "working", "reason": ""}]`, "claude_ide_bridge#State().claude")
	wantStatus("claude: working")
	hook(map[string]any{"hook_event_name": "PermissionRequest", "session_id": "s1", "tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf x"}})
	v.waitEval(`"waiting"`, "claude_ide_bridge#State().claude[0].state")
	if m := v.messages(); strings.Count(m, "Claude is waiting for you: permission for Bash") != 1 {
		t.Errorf("want one warning of the wait:\n%s", m)
	}
	wantStatus("claude: waiting: permission for Bash")
	hook(map[string]any{"hook_event_name": "SessionEnd", "session_id": "s1", "reason": "other"})
	v.waitEval(`[]`, "claude_ide_bridge#State().claude")
}
