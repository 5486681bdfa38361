package nvimtest

import (
	"os"
	"path/filepath"
	"testing"
)

// The help page builds its tags without errors and :help finds its topics.
func TestHelp(t *testing.T) {
	root := t.TempDir()
	doc := filepath.Join(root, "doc")
	if err := os.MkdirAll(doc, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(pluginDir, "doc", "claude-ide-bridge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(doc, "claude-ide-bridge.txt"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	n := startNvim(t, root)
	n.ex(t, "helptags "+doc)
	n.ex(t, "set rtp^="+root)
	for _, topic := range []string{"claude-ide-bridge", ":ClaudeCodeSend", "claude-ide-bridge-selection", "claude-ide-bridge.setup()", "claude-ide-bridge-options"} {
		n.ex(t, "help "+topic)
		if got := n.str(t, `return vim.fn.expand("%:t")`); got != "claude-ide-bridge.txt" {
			t.Fatalf(":help %s opened %q", topic, got)
		}
	}
}
