package nvimtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools/navtest"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

// End to end: :ClaudeCode starts the real CLI with the --mcp-config the bridge wrote; the
// (fake) model calls references as mcp__ide-code__references (facts: "tools of such a server
// reach the model as mcp__<server>__<tool>"); the CLI calls /mcp, Neovim's gopls answers,
// and the tool result the model receives lists exactly the expected places.
func TestRealClaudeCallsReferences(t *testing.T) {
	bin := os.Getenv("CLAUDE_BIN")
	if bin == "" {
		t.Skip("CLAUDE_BIN not set (CLAUDE_BIN=$(scripts/ensure-claude-cli)): the model-tools test with the real Claude Code CLI is NOT running")
	}
	api := fakeapi.New()
	t.Cleanup(api.Close)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	proj, cfg, home := filepath.Join(root, "proj"), filepath.Join(root, "cfg"), filepath.Join(root, "home")
	for _, d := range []string{proj, cfg, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	navtest.Copy(t, proj)
	seed, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string]any{"approved": []string{fakeKey[len(fakeKey)-20:]}, "rejected": []string{}},
		"projects":               map[string]any{proj: map[string]any{"hasTrustDialogAccepted": true}},
	})
	if err := os.WriteFile(filepath.Join(cfg, ".claude.json"), seed, 0o600); err != nil {
		t.Fatal(err)
	}
	n := startNvim(t, proj,
		"HOME="+home, "CLAUDE_CONFIG_DIR="+cfg, "LANG=C.UTF-8",
		"ANTHROPIC_API_KEY="+fakeKey, "ANTHROPIC_BASE_URL="+api.URL,
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1")
	e := &env{proj: proj, cfg: cfg, n: n}
	t.Cleanup(func() {
		n.tryLua(`local b = require("claude-ide-bridge.terminal").buf()
			if not b then return 0 end
			local j = vim.b[b].terminal_job_id
			vim.fn.jobstop(j)
			return vim.fn.jobwait({j}, 10000)[1]`)
		e.stopBridge(t)
	})
	n.lua(t, attachGopls, goplsPath(t), proj)
	n.ex(t, "set columns=220 lines=50")
	const tool = "mcp__ide-code__references"
	n.lua(t, `require("claude-ide-bridge").setup(...)`, map[string]any{
		"bin":          bridgeBin,
		"terminal_cmd": []string{bin, "--permission-mode", "default", "--allowedTools", tool},
		"terminal":     map[string]any{"size": 0.7},
	})
	n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
	n.ex(t, "ClaudeCode")
	screen := func() string {
		return n.str(t, `local b = require("claude-ide-bridge.terminal").buf()
			return b and table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n") or ""`)
	}
	if !pollFor(90*time.Second, func() bool {
		var c int
		n.luaInto(t, &c, `return require("claude-ide-bridge").state().clients`)
		return c == 1 && strings.Contains(screen(), "? for shortcuts")
	}) {
		t.Fatalf("the CLI did not connect and get ready; screen:\n%s", screen())
	}
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
	send := `vim.fn.chansend(vim.b[require("claude-ide-bridge.terminal").buf()].terminal_job_id, ...)`
	n.lua(t, send, "who uses Total")
	time.Sleep(300 * time.Millisecond) // not an assertion: the TUI treats a burst ending in Enter as a paste
	n.lua(t, send, "\r")

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	first, err := api.WaitMain(ctx, 1)
	if err != nil {
		t.Fatalf("no request from the CLI: %v; screen:\n%s", err, screen())
	}
	if !strings.Contains(first.Text(), tool) {
		t.Errorf("the model was not offered %s", tool)
	}
	second, err := api.WaitMain(ctx, 2)
	if err != nil {
		t.Fatalf("no tool result: %v; screen:\n%s", err, screen())
	}
	res := second.ToolResults()
	if len(res) != 1 || res[0].IsError {
		t.Fatalf("tool results %+v", res)
	}
	navtest.Equal(t, "the model's tool result", navtest.Places(res[0].Content), navtest.References)
	if !pollFor(60*time.Second, func() bool { return strings.Contains(screen(), "REFERENCES DONE") }) {
		t.Fatalf("the turn did not finish; screen:\n%s", screen())
	}
}
