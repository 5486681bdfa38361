package stdio

import (
	"context"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
)

// asker is an editor that declared askPermission: the prompt is a request it answers once
// shown, the decision its own request (permissionDecided), a withdrawal a notification.
type asker struct{ conn *jsonrpc.Conn }

func (a asker) Ask(ctx context.Context, r permission.Request) error {
	return a.conn.Call(ctx, "askPermission", r, nil)
}

func (a asker) Withdraw(id uint64, why string) {
	a.conn.Notify(context.Background(), "permissionWithdrawn", map[string]any{"id": id, "reason": why})
}

func (a asker) Gone() <-chan struct{} { return a.conn.Done() }

// askerOf is the editor's asker when it declared the capability; nil otherwise.
func askerOf(conn *jsonrpc.Conn, caps ide.Capabilities) func() permission.Asker {
	if !caps.AskPermission {
		return nil
	}
	return func() permission.Asker { return asker{conn} }
}
