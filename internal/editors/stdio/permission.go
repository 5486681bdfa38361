package stdio

import (
	"context"
	"errors"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
)

// asker is an editor that declared askPermission: the prompt is a request it answers once
// shown, the decision its own request (permissionDecided), a withdrawal a notification.
type asker struct {
	conn  *jsonrpc.Conn
	tools permission.Tools
}

// errNotListed: the editor's capability leaves this tool out; the terminal decides at once.
var errNotListed = errors.New("the editor is not asked about this tool")

func (a asker) Ask(ctx context.Context, r permission.Request) error {
	if !a.tools.Match(r.Tool) {
		return errNotListed
	}
	return a.conn.Call(ctx, "askPermission", r, nil)
}

func (a asker) Withdraw(id uint64, why string) {
	a.conn.Notify(context.Background(), "permissionWithdrawn", map[string]any{"id": id, "reason": why})
}

func (a asker) Gone() <-chan struct{} { return a.conn.Done() }

// askerOf is the editor's asker when it declared the capability (for some tool); nil otherwise.
func askerOf(conn *jsonrpc.Conn, caps ide.Capabilities) func() permission.Asker {
	if !caps.AskPermission.Any() {
		return nil
	}
	return func() permission.Asker { return asker{conn, caps.AskPermission} }
}
