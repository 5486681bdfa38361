package discovery_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
)

func ExampleWriteLock() {
	home, err := os.MkdirTemp("", "discovery-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(home)

	token, err := discovery.NewToken()
	if err != nil {
		panic(err)
	}
	folders, err := discovery.ResolveFolders([]string{home})
	if err != nil {
		panic(err)
	}
	// Real code writes into discovery.Dir(), for the port discovery.Listen(0) bound.
	path, err := discovery.WriteLock(filepath.Join(home, ".claude", "ide"), 43117, discovery.Lock{
		PID:              os.Getpid(),
		WorkspaceFolders: folders,
		IDEName:          "Neovim",
		AuthToken:        token,
		Bridge:           discovery.BridgeMarker,
	})
	if err != nil {
		panic(err)
	}
	defer discovery.RemoveLock(path)

	rel, _ := filepath.Rel(home, path)
	fmt.Println(rel)
	// Output: .claude/ide/43117.lock
}
