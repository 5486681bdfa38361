package nvimtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

const fakeKey = "sk-ant-api03-fake-nvim-key-0123456789abcdefghij"

// The whole way: :ClaudeCode runs the real Claude Code CLI in Neovim's
// terminal; it connects through the environment the plugin gives it, sees
// the selection, and its Edit becomes a diff that :w accepts. The CLI, not
// the plugin, writes the file.
func TestRealClaudeInTerminal(t *testing.T) {
	bin := os.Getenv("CLAUDE_BIN")
	if bin == "" {
		t.Skip("CLAUDE_BIN not set (CLAUDE_BIN=$(scripts/ensure-claude-cli)): the Neovim plugin's test with the real Claude Code CLI is NOT running")
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
	// Facts: "Pre-seed $CLAUDE_CONFIG_DIR/.claude.json ... without it the CLI
	// tries the network at start and exits."
	seed, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string]any{"approved": []string{fakeKey[len(fakeKey)-20:]}, "rejected": []string{}},
		"projects":               map[string]any{proj: map[string]any{"hasTrustDialogAccepted": true}},
	})
	if err := os.WriteFile(filepath.Join(cfg, ".claude.json"), seed, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(proj, "hello.txt")
	if err := os.WriteFile(path, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	n := startNvim(t, proj,
		"HOME="+home, "CLAUDE_CONFIG_DIR="+cfg, "LANG=C.UTF-8",
		"ANTHROPIC_API_KEY="+fakeKey, "ANTHROPIC_BASE_URL="+api.URL,
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1")
	e := &env{proj: proj, cfg: cfg, n: n}
	t.Cleanup(func() {
		// End claude first (bounded), then the bridge.
		n.tryLua(`local b = require("claude-ide-bridge.terminal").buf()
			if not b then return 0 end
			local j = vim.b[b].terminal_job_id
			vim.fn.jobstop(j)
			return vim.fn.jobwait({j}, 10000)[1]`)
		e.stopBridge(t)
	})
	n.ex(t, "set columns=220 lines=50")
	n.lua(t, `require("claude-ide-bridge").setup(...)`, map[string]any{
		"bin":          bridgeBin,
		"terminal_cmd": []string{bin, "--permission-mode", "default"},
		"terminal":     map[string]any{"size": 0.7},
	})
	n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
	n.ex(t, "edit "+path)
	n.ex(t, "ClaudeCode")
	screen := func() string {
		return n.str(t, `local b = require("claude-ide-bridge.terminal").buf()
			return b and table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n") or ""`)
	}
	// Facts: "With no network, expect up to ~20 s before it connects".
	if !pollFor(90*time.Second, func() bool {
		var c int
		n.luaInto(t, &c, `return require("claude-ide-bridge").state().clients`)
		return c == 1 && strings.Contains(screen(), "? for shortcuts")
	}) {
		t.Fatalf("the CLI did not connect and get ready; screen:\n%s", screen())
	}

	// Back in the file, select "world", then type in the terminal again. The
	// CLI shows what it got before the user types, as a user would see. One
	// selection must do: the bridge holds notifications until the CLI listens.
	{
		n.input(t, `<C-\><C-n>`)
		n.waitLua(t, `"n"`, `return vim.api.nvim_get_mode().mode:sub(1, 1)`)
		n.ex(t, "wincmd p")
		n.input(t, "<Esc>0")
		n.waitLua(t, `""`, `return vim.json.decode(require("claude-ide-bridge.tracker").last_sent() or "{}").text`)
		n.input(t, "wve")
		n.waitLua(t, `"world"`, `return vim.json.decode(require("claude-ide-bridge.tracker").last_sent() or "{}").text`)
		n.ex(t, "ClaudeCode")
	}
	if !pollFor(10*time.Second, func() bool { return strings.Contains(screen(), "1 line selected") }) {
		t.Fatalf("the CLI does not show the selection; screen:\n%s", screen())
	}

	api.Push(
		fakeapi.Tool("Read", map[string]any{"file_path": path}),
		fakeapi.Tool("Edit", map[string]any{"file_path": path, "old_string": "world", "new_string": "there"}),
		fakeapi.Text("EDIT ACCEPTED"),
	)
	send := `vim.fn.chansend(vim.b[require("claude-ide-bridge.terminal").buf()].terminal_job_id, ...)`
	n.lua(t, send, "edit hello")
	time.Sleep(300 * time.Millisecond) // not an assertion: the TUI treats a burst ending in Enter as a paste
	n.lua(t, send, "\r")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	first, err := api.WaitMain(ctx, 1)
	if err != nil {
		t.Fatalf("no request from the CLI: %v; screen:\n%s", err, screen())
	}
	// Facts: non-empty selection text reaches the model as "The user selected
	// the lines A to B from <path>".
	if !strings.Contains(first.Text(), "selected the lines 1 to 1 from "+path) {
		t.Errorf("the model was not told the selection:\n%s", first.LastUserText())
	}

	if !pollFor(60*time.Second, func() bool {
		var d int
		n.luaInto(t, &d, `return #require("claude-ide-bridge.diff").list()`)
		return d == 1
	}) {
		t.Fatalf("no diff shown; screen:\n%s", screen())
	}
	if got := fileText(t, path); got != "hello world\n" {
		t.Fatalf("file changed before the accept: %q", got)
	}
	n.ex(t, "write")
	if !pollFor(60*time.Second, func() bool { return fileText(t, path) == "hello there\n" }) {
		t.Fatalf("the CLI did not write the accepted text; file %q; screen:\n%s", fileText(t, path), screen())
	}
	if !pollFor(60*time.Second, func() bool { return strings.Contains(screen(), "EDIT ACCEPTED") }) {
		t.Fatalf("the turn did not finish; screen:\n%s", screen())
	}
	n.waitLua(t, `0`, `return #require("claude-ide-bridge.diff").list()`)
}
