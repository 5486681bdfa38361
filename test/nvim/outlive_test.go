//go:build unix

package nvimtest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// Issue 29: a Claude outside Neovim keeps its IDE across Neovim restarts
// (:help claude-ide-bridge-outlive).

// workspace is a project with its CLAUDE_CONFIG_DIR and HOME, in which several
// Neovims start one after the other.
type workspace struct{ proj, cfg, home string }

func newWorkspace(t *testing.T) workspace {
	t.Helper()
	d := harness.Dirs(t, "proj", "cfg", "home")
	w := workspace{d[0], d[1], d[2]}
	// Whatever a test leaves running ends before the temp dirs go: a bridge that outlived its
	// Neovim is told to stop (SIGTERM: a real stop) and waited for.
	t.Cleanup(func() {
		names, _ := filepath.Glob(filepath.Join(w.cfg, "ide", "*.lock"))
		for _, name := range names {
			var l lockFile
			if data, err := os.ReadFile(name); err == nil && json.Unmarshal(data, &l) == nil && l.PID > 0 {
				syscall.Kill(l.PID, syscall.SIGTERM)
			}
		}
		poll(func() bool { names, _ := filepath.Glob(filepath.Join(w.cfg, "ide", "*.lock")); return len(names) == 0 })
	})
	return w
}

// start starts a Neovim in the workspace with the plugin set up (Claude outside
// it: provider none) and waits until its bridge is ready. _G.NVT_shown is then
// set to the milliseconds from setup() to the first diff shown.
func (w workspace) start(t *testing.T) *nvim {
	t.Helper()
	n := startNvim(t, w.proj, "CLAUDE_CONFIG_DIR="+w.cfg, "HOME="+w.home)
	n.lua(t, `_G.NVT_t0 = (vim.uv or vim.loop).hrtime()
		vim.api.nvim_create_autocmd("User", { pattern = "ClaudeCodeDiffOpened", once = true, callback = function()
			_G.NVT_shown = ((vim.uv or vim.loop).hrtime() - _G.NVT_t0) / 1e6
		end })
		require("claude-ide-bridge").setup(...)`, map[string]any{"bin": bridgeBin, "terminal": map[string]any{"provider": "none"}})
	n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
	return n
}

// quit ends Neovim the way a user does (:qa!) and waits for it.
func quit(t *testing.T, n *nvim) {
	t.Helper()
	n.tryLua(`vim.schedule(function() vim.cmd("qa!") end)`)
	select {
	case <-n.done:
	case <-time.After(15 * time.Second):
		t.Fatal("Neovim did not quit")
	}
}

func bridgeState(t *testing.T, n *nvim) (pid int, attached bool) {
	t.Helper()
	var st struct {
		BridgePID int  `json:"bridge_pid"`
		Attached  bool `json:"attached"`
	}
	n.luaInto(t, &st, `return require("claude-ide-bridge").state()`)
	return st.BridgePID, st.Attached
}

func processGone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// waitLockPID waits until the workspace's only lock names pid.
func (w workspace) waitLockPID(t *testing.T, pid int) {
	t.Helper()
	waitFor(t, "the lock to name the bridge", func() bool {
		names, _ := filepath.Glob(filepath.Join(w.cfg, "ide", "*.lock"))
		if len(names) != 1 {
			return false
		}
		var l lockFile
		data, _ := os.ReadFile(names[0])
		return json.Unmarshal(data, &l) == nil && l.PID == pid
	})
}

// "Neovim quits; the CLI stays connected and the lock stays; Claude proposes an
// Edit meanwhile; Neovim starts again in the workspace: the proposal is on
// screen within 1 s of the start, :w accepts it." Here with a Claude-side
// client; TestRealClaudeOutlivesNeovim does it with the real CLI; the time is
// bench/attach's.
func TestNeovimRestartAttaches(t *testing.T) {
	w := newWorkspace(t)
	n1 := w.start(t)
	c := dialClaude(t, w.cfg)
	n1.waitLua(t, `1`, `return require("claude-ide-bridge").state().clients`)
	pid, attached := bridgeState(t, n1)
	if attached || n1.str(t, `return tostring(require("claude-ide-bridge").status().attached)`) != "false" {
		t.Error("the Neovim that started the bridge says attached")
	}
	path := filepath.Join(w.proj, "a.txt")
	os.WriteFile(path, []byte("old\n"), 0o644)

	quit(t, n1)
	w.waitLockPID(t, pid) // the bridge names itself: the CLI keeps the lock
	select {
	case <-c.done:
		t.Fatal("Claude was disconnected when Neovim quit")
	default:
	}
	ch := c.startTool(t, "openDiff", map[string]any{"old_file_path": path, "new_file_path": path, "new_file_contents": "new\n", "tab_name": tabA})
	// The bridge keeps it pending with no editor: getDiagnostics still answers meanwhile.
	if r := c.tool(t, "getDiagnostics", map[string]any{"uri": "file://" + path}); r.IsError {
		t.Errorf("getDiagnostics with no editor: %+v", r)
	}

	start := time.Now()
	n2 := w.start(t)
	e := &env{proj: w.proj, cfg: w.cfg, n: n2, c: c}
	e.waitDiffs(t, tabA+"=pending")
	t.Logf("from Neovim's start to the proposal shown: %v (setup() to shown, in Neovim: %s ms)",
		time.Since(start).Round(time.Millisecond), n2.str(t, `return string.format("%.1f", _G.NVT_shown or -1)`))
	// "Within 1 s" is measured by bench/attach (docs/performance.md), not asserted here: under
	// CI's load (the editor suites at once, -race) a wall-clock bound failed runs with no fault.
	var shown float64
	n2.luaInto(t, &shown, `return _G.NVT_shown or -1`)
	if shown < 0 {
		t.Error("ClaudeCodeDiffOpened never fired for the proposal shown")
	}
	n2.waitLua(t, `1`, `return require("claude-ide-bridge").state().clients`) // told who is connected
	if p2, attached := bridgeState(t, n2); !attached || p2 == pid {
		t.Errorf("second Neovim: attached %v, its process %d (the bridge is %d)", attached, p2, pid)
	}
	if got := n2.str(t, `return tostring(require("claude-ide-bridge").status().attached)`); got != "true" {
		t.Errorf("status().attached = %s", got)
	}
	n2.ex(t, "write") // the proposal is the current window
	wantTexts(t, toolOf(t, await(t, ch)), "FILE_SAVED", "new\n")
	health := n2.str(t, `vim.cmd("checkhealth claude-ide-bridge") return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")`)
	if !strings.Contains(health, "attached: this Neovim joined a bridge") {
		t.Errorf(":checkhealth does not say attached:\n%s", health)
	}

	// :ClaudeCodeStop ends the bridge for real, though this Neovim only attached.
	n2.ex(t, "ClaudeCodeStop")
	waitFor(t, "the bridge to end", func() bool { return processGone(pid) })
	if names, _ := filepath.Glob(filepath.Join(w.cfg, "ide", "*.lock")); len(names) != 0 {
		t.Errorf("locks left: %v", names)
	}
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		t.Error("Claude was not disconnected by :ClaudeCodeStop")
	}
}

// "With no Claude connected, quitting Neovim ends the bridge and removes its
// lock, as today."
func TestNeovimQuitWithoutClaudeEndsBridge(t *testing.T) {
	w := newWorkspace(t)
	n := w.start(t)
	pid, _ := bridgeState(t, n)
	quit(t, n)
	waitFor(t, "the bridge to end with Neovim", func() bool { return processGone(pid) })
	if names, _ := filepath.Glob(filepath.Join(w.cfg, "ide", "*.lock")); len(names) != 0 {
		t.Errorf("locks left: %v", names)
	}
}

// A second Neovim in the workspace while the first runs gets a bridge of its
// own (:help claude-ide-bridge-outlive): it never takes the first one's diffs.
func TestSecondNeovimGetsItsOwnBridge(t *testing.T) {
	w := newWorkspace(t)
	n1 := w.start(t)
	c := dialClaude(t, w.cfg)
	n1.waitLua(t, `1`, `return require("claude-ide-bridge").state().clients`)
	n2 := w.start(t)
	var p1, p2 int
	n1.luaInto(t, &p1, `return require("claude-ide-bridge").state().port`)
	n2.luaInto(t, &p2, `return require("claude-ide-bridge").state().port`)
	if _, attached := bridgeState(t, n2); attached || p1 == p2 {
		t.Errorf("second Neovim: attached %v, port %d (the first's %d)", attached, p2, p1)
	}
	c.close()
	n1.ex(t, "ClaudeCodeStop")
	n2.ex(t, "ClaudeCodeStop")
}
