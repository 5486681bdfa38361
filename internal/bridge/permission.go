package bridge

import (
	"net/http"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/claudestate"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
)

// startPermissions sets up the permission prompts' broker: a session's end withdraws its
// pending prompts.
func (b *Bridge) startPermissions(cfg Config) {
	b.Permissions = &permission.Broker{Asker: cfg.Asker}
	prev := b.State.Event
	b.State.Event = func(ev claudestate.Event) {
		if prev != nil {
			prev(ev)
		}
		if ev.Name == "SessionEnd" {
			b.Permissions.SessionEnded(ev.SessionID)
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
