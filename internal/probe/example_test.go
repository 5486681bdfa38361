package probe_test

import (
	"context"
	"fmt"
	"os"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
)

// Probe an IDE server found through its lock file.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "probe-example")
	defer os.RemoveAll(dir)
	b, err := bridge.Start(bridge.Config{Editor: &autoEditor{}, Info: ide.EditorInfo{Name: "Example"}, Folders: []string{dir}, LockDir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()

	target, err := probe.FromLock(b.LockPath())
	if err != nil {
		fmt.Println(err)
		return
	}
	results, _ := probe.Run(context.Background(), target, probe.Options{
		Checks: []string{"auth-no-token", "subprotocol", "initialize", "close-tab-unknown", "unknown-method"},
	})
	for _, r := range results {
		fmt.Println(r.Name, r.Status)
	}
	fmt.Println("failed:", probe.Failed(results))
	// Output:
	// auth-no-token pass
	// subprotocol pass
	// initialize pass
	// close-tab-unknown pass
	// unknown-method pass
	// failed: false
}
