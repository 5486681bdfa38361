package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/claudestate"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/remote"
)

// cmdHook is `hook --port N`, run by the CLI for the hooks of the bridge's --settings file: it
// reads the hook's JSON on stdin and posts the few fields the bridge needs (claudestate.Event:
// never the prompt or a tool's input, but for PermissionRequest) to the bridge on port N, found through its lock file and
// its one liveness check, authenticated like `mention`. It never fails the CLI: problems go to
// stderr and the status is 0; it prints nothing on stdout (the CLI reads a hook's stdout),
// except the editor's decision on a PermissionRequest: that one waits for the bridge
// (remote.PathPermission) until the editor decides, cannot, or the CLI cancels the hook.
func cmdHook(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 0, "the bridge's port")
	if err := fs.Parse(args); err != nil || *port == 0 {
		fmt.Fprintln(stderr, "usage: claude-ide-bridge hook --port N   (run by Claude Code's hooks, JSON on stdin)")
		return nil
	}
	if err := hook(ctx, *port, stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "claude-ide-bridge hook:", err)
	}
	return nil
}

// hook posts the hook's input on stdin to the bridge on port.
func hook(ctx context.Context, port int, stdin io.Reader, stdout io.Writer) error {
	data, err := io.ReadAll(io.LimitReader(stdin, permission.MaxBody))
	var ev claudestate.Event
	if err == nil {
		err = json.Unmarshal(data, &ev)
	}
	if err != nil {
		return fmt.Errorf("reading the hook's input: %w", err)
	}
	b, err := bridgeOnPort(port)
	if err != nil {
		return err
	}
	if ev.Name == "PermissionRequest" {
		// ctx ends on the CLI's signal (main's signal.NotifyContext): the connection closes
		// and the bridge withdraws the editor's prompt.
		var a permission.Answer
		if err := remote.PostWait(ctx, b, remote.PathPermission, json.RawMessage(data), &a, permission.MaxBody); err != nil {
			return err
		}
		if len(a.Output) > 0 {
			stdout.Write(append(a.Output, '\n'))
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var reply struct{}
	return remote.Post(ctx, b, remote.PathHook, ev, &reply, 4096)
}

// bridgeOnPort is the live claude-ide-bridge whose lock has port's name.
func bridgeOnPort(port int) (remote.Bridge, error) {
	locks, _ := discovery.ListLocks(discovery.Dirs())
	for _, li := range locks {
		if li.Port != port || !li.Ours {
			continue
		}
		if why := li.Live(); why != nil {
			return remote.Bridge{}, fmt.Errorf("the bridge on port %d: %v", port, why)
		}
		return remote.Bridge{Port: li.Port, Token: li.Lock.AuthToken, Lock: li.Path, IDE: li.Lock.IDEName}, nil
	}
	return remote.Bridge{}, fmt.Errorf("no claude-ide-bridge lock for port %d", port)
}
