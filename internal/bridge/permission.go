package bridge

import (
	"net/http"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/claudestate"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
)

// startPermissions sets up the permission prompts' broker: a session's end withdraws its
// pending prompts, and so does the session going past them (the tool ran or failed, the turn
// ended, a new prompt): answered in Claude's terminal, which does not always cancel the hook.
func (b *Bridge) startPermissions(cfg Config) {
	b.Permissions = &permission.Broker{Asker: cfg.Asker}
	prev := b.State.Event
	b.State.Event = func(ev claudestate.Event) {
		if prev != nil {
			prev(ev)
		}
		switch ev.Name {
		case "SessionEnd":
			b.Permissions.SessionEnded(ev.SessionID)
		case "PostToolUse", "PostToolUseFailure":
			b.Permissions.MovedOn(ev.SessionID, ev.ToolName)
		case "Stop", "StopFailure", "UserPromptSubmit":
			b.Permissions.MovedOn(ev.SessionID, "")
		}
	}
}

// permissionHandler serves the PermissionRequest hook: the session's state (waiting) first,
// then the editor's decision, if one comes.
func (b *Bridge) permissionHandler() http.Handler {
	return permission.Handler(b.Permissions, func(in permission.HookInput) {
		b.State.Hook(claudestate.Event{Name: in.Event, SessionID: in.SessionID, Cwd: in.Cwd, ToolName: in.Tool})
	})
}
