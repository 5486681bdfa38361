package claudestate

import (
	"encoding/json"
	"strconv"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// HookEvents are the CLI events the bridge's settings file hooks. Not PreToolUse: it would run a
// process before every tool call, and PostToolUse already says the session works again after a
// permission prompt.
var HookEvents = []string{"SessionStart", "UserPromptSubmit", "Notification", "PermissionRequest", "PostToolUse", "Stop", "StopFailure", "SessionEnd"}

// Settings is the --settings JSON that makes the CLI run `exe hook --port PORT` on each of
// HookEvents. It sets nothing else (no permissions, no mode).
func Settings(exe string, port int) []byte {
	cmd := termtext.ShellQuote(exe) + " hook --port " + strconv.Itoa(port)
	entry := []map[string]any{{"hooks": []map[string]any{{"type": "command", "command": cmd, "timeout": 5}}}}
	hooks := map[string]any{}
	// The PermissionRequest hook waits for the editor's decision (internal/permission); the
	// CLI cancels it when the user answers in the terminal first.
	wait := []map[string]any{{"type": "command", "command": cmd, "timeout": 600}}
	for _, e := range HookEvents {
		if e == "PermissionRequest" {
			hooks[e] = []map[string]any{{"matcher": "*", "hooks": wait}}
			continue
		}
		if e == "PostToolUse" {
			hooks[e] = []map[string]any{{"matcher": "*", "hooks": entry[0]["hooks"]}}
			continue
		}
		hooks[e] = entry
	}
	b, _ := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	return append(b, '\n')
}
