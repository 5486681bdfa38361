package nvimtest

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/seltable"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// env is a project directory, a Neovim running the plugin against the real
// bridge, and (when dialled) a Claude client.
type env struct {
	proj, cfg string
	n         *nvim
	c         *claude
	// nvimEnv is more environment for Neovim and the bridge it starts (set in before).
	nvimEnv []string
}

// newEnv starts Neovim with setup(opts) (bin is filled in) and waits for the
// bridge; connect dials a Claude client and waits until the plugin counts it.
func newEnv(t *testing.T, opts map[string]any, connect bool) *env {
	t.Helper()
	return newEnvFull(t, opts, connect, nil, false)
}

// newEnvTmux is newEnv (connected) with Neovim's UI in tmux: e.n.keys types real keys.
func newEnvTmux(t *testing.T, opts map[string]any) *env {
	t.Helper()
	return newEnvFull(t, opts, true, nil, true)
}

// newEnvBefore is newEnv (not connected) with before run once the directories exist, before
// the plugin starts (to write settings files).
func newEnvBefore(t *testing.T, opts map[string]any, before func(*env)) *env {
	t.Helper()
	return newEnvFull(t, opts, false, before, false)
}

func newEnvFull(t *testing.T, opts map[string]any, connect bool, before func(*env), tmux bool) *env {
	t.Helper()
	d := harness.Dirs(t, "proj", "cfg", "home")
	e := &env{proj: d[0], cfg: d[1]}
	root := filepath.Dir(e.proj)
	if before != nil {
		before(e)
	}
	// XDG_CONFIG_HOME: the bridge's trust store is the test's (Neovim runs with --clean).
	e.n = startNvimIn(t, e.proj, tmux, append([]string{"CLAUDE_CONFIG_DIR=" + e.cfg, "HOME=" + filepath.Join(root, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(root, "home", ".config")}, e.nvimEnv...)...)
	if opts == nil {
		opts = map[string]any{}
	}
	if _, set := opts["bin"]; !set {
		opts["bin"] = bridgeBin
	}
	// Before Neovim goes: stop the bridge and wait until it has removed its
	// lock file, so nothing writes into the temp dirs after the test.
	t.Cleanup(func() { e.stopBridge(t) })
	if tmux {
		e.n.waitLua(t, `true`, `return #vim.api.nvim_list_uis() > 0`) // tmux's terminal is attached
	}
	e.n.lua(t, `require("claude-ide-bridge").setup(...)`, opts)
	e.n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
	if connect {
		e.c = dialClaude(t, e.cfg)
		e.n.waitLua(t, `1`, `return require("claude-ide-bridge").state().clients`)
	}
	return e
}

// file writes a file in the project and returns its path.
func (e *env) file(t *testing.T, name, content string) string {
	t.Helper()
	return testbin.WriteFile(t, e.proj, name, content)
}

// edit opens path in the current window.
func (e *env) edit(t *testing.T, path string) {
	t.Helper()
	e.n.ex(t, "edit "+path)
}

// selection is the payload shape the spec gives (fileUrl, added by the
// bridge, is not compared).
type (
	selection = seltable.Selection
	pos       = seltable.Pos
)

func decodeSel(raw json.RawMessage) (selection, bool) {
	var s selection
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}

// waitSelection waits for Claude to receive selection_changed equal to want.
func (e *env) waitSelection(t *testing.T, want selection) {
	t.Helper()
	e.c.waitNote(t, "selection_changed", func(p json.RawMessage) bool {
		got, ok := decodeSel(p)
		return ok && got == want
	})
}

// stopBridge stops the bridge and waits (bounded) for its lock file to go.
func (e *env) stopBridge(t *testing.T) {
	e.n.tryLua(`require("claude-ide-bridge").stop()`)
	ok := poll(func() bool {
		names, _ := filepath.Glob(filepath.Join(e.cfg, "ide", "*.lock"))
		r, err := e.n.tryLua(`return require("claude-ide-bridge").state().running`)
		return len(names) == 0 && err == nil && string(r) == "false"
	})
	if !ok {
		t.Errorf("the bridge did not stop and remove its lock file")
	}
}
