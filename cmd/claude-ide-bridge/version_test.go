package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The bridge's default version is the Neovim plugin's: :checkhealth compares them, and
// :ClaudeCodeInstall downloads the release of the plugin's version.
func TestVersionMatchesPlugin(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "lua", "claude-ide-bridge", "version.lua"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `return "`+version+`"`) {
		t.Fatalf("main.version %q is not the plugin's (lua/claude-ide-bridge/version.lua):\n%s", version, b)
	}
}
