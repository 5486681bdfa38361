package nvimtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/navtest"
)

// End to end: :ClaudeCode starts the real CLI with the --mcp-config the bridge wrote; the
// (fake) model calls references as mcp__ide-code__references (facts: "tools of such a server
// reach the model as mcp__<server>__<tool>"); the CLI calls /mcp, Neovim's gopls answers,
// and the tool result the model receives lists exactly the expected places.
func TestRealClaudeCallsReferences(t *testing.T) {
	const tool = "mcp__ide-code__references"
	rc := startRealClaude(t, []string{"--permission-mode", "default", "--allowedTools", tool}, func(n *nvim, proj string) {
		navtest.Copy(t, proj)
		n.lua(t, attachGopls, harness.Gopls(t), proj)
		// The user has a Go file open, so gopls runs: a file loaded only for a tool starts none.
		n.lua(t, `vim.cmd("edit " .. vim.fn.fnameescape(...))`, filepath.Join(proj, "shapes.go"))
		n.waitLua(t, "true", `local c = (vim.lsp.get_clients or vim.lsp.get_active_clients)()[1] return c ~= nil and c.initialized ~= false`)
	})
	n, api, cfg, screen := rc.n, rc.api, rc.cfg, rc.screen
	// The CLI's own command line (Linux /proc) carries the bridge's config file.
	var pid int
	n.luaInto(t, &pid, `return vim.fn.jobpid(vim.b[require("claude-ide-bridge.terminal").buf()].terminal_job_id)`)
	argv, _ := os.ReadFile("/proc/" + itoa(pid) + "/cmdline")
	_, _, cfgFile := mcpConfig(t, cfg)
	if !strings.Contains(string(argv), "--mcp-config\x00"+cfgFile) {
		t.Errorf(":ClaudeCode's command has no --mcp-config %s: %q", cfgFile, argv)
	}

	api.Push(
		fakeapi.Tool(tool, map[string]any{"path": "use.go", "line": 5, "symbol": "Total"}),
		fakeapi.Text("REFERENCES DONE"),
	)
	rc.prompt(t, "who uses Total")

	first := api.MustMain(t, 120*time.Second, 1, screen)
	if !strings.Contains(first.Text(), tool) {
		t.Errorf("the model was not offered %s", tool)
	}
	second := api.MustMain(t, 120*time.Second, 2, screen) // the tool's result
	res := second.ToolResults()
	if len(res) != 1 || res[0].IsError {
		t.Fatalf("tool results %+v", res)
	}
	navtest.Equal(t, "the model's tool result", navtest.Places(res[0].Content), navtest.References)
	if !harness.Poll(60*time.Second, func() bool { return strings.Contains(screen(), "REFERENCES DONE") }) {
		t.Fatalf("the turn did not finish; screen:\n%s", screen())
	}
}
