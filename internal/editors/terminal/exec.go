package terminal

import (
	"context"
	"os/exec"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
)

// command is a program the reviewer runs (sh for $EDITOR and $PAGER, less, --open-cmd's
// editor), found as a language server is (trust.LookPath: never in the workspace or from a
// relative $PATH entry, nor writable by another user) and started with that clean $PATH
// (trust.Env), so that what it runs by name is not the workspace's either. The workspace's
// files are Claude's to write: a program taken from them would let a write run code.
func (e *Editor) command(ctx context.Context, name string, args ...string) (*exec.Cmd, error) {
	e.mu.Lock()
	d := e.d
	e.mu.Unlock()
	var folders []string
	if d != nil { // the Model's lock is never taken under e.mu
		folders = d.Folders()
	}
	prog, err := trust.LookPath(name, "", folders)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Args[0] = name
	cmd.Env = trust.Env(folders)
	return cmd, nil
}
