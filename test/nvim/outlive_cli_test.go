//go:build unix

package nvimtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// tmuxCLI is the real Claude Code CLI in a tmux session of its own (outside
// Neovim, as users run it beside Neovim).
type tmuxCLI struct {
	sock, session string
}

func (c tmuxCLI) tmux(args ...string) ([]byte, error) {
	return exec.Command("tmux", append([]string{"-L", c.sock}, args...)...).CombinedOutput()
}

func (c tmuxCLI) screen() string {
	out, _ := c.tmux("capture-pane", "-p", "-t", c.session)
	return string(out)
}

// typeLine types text and Enter (apart: the TUI takes a burst ending in Enter for a paste).
func (c tmuxCLI) typeLine(t *testing.T, text string) {
	t.Helper()
	if out, err := c.tmux("send-keys", "-t", c.session, "-l", text); err != nil {
		t.Fatalf("tmux send-keys: %v: %s", err, out)
	}
	time.Sleep(300 * time.Millisecond) // not an assertion: see typePrompt
	c.tmux("send-keys", "-t", c.session, "Enter")
}

// startTmuxCLI runs the CLI in w's project with the environment Neovim's bridge gives (port
// from info), against api, in manual mode (an Edit becomes an openDiff).
func startTmuxCLI(t *testing.T, w workspace, port int, api *fakeapi.Server) tmuxCLI {
	t.Helper()
	bin := harness.ClaudeBin(t, "the restart test with the real Claude Code CLI")
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not found")
	}
	harness.SeedConfig(t, w.cfg, w.proj)
	env := append(harness.OfflineEnv(api.URL),
		"HOME="+w.home, "CLAUDE_CONFIG_DIR="+w.cfg, "LANG=C.UTF-8", "TERM=xterm-256color",
		"CLAUDE_CODE_SSE_PORT="+strconv.Itoa(port), "ENABLE_IDE_INTEGRATION=true",
		"no_proxy=127.0.0.1,localhost,::1", "NO_PROXY=127.0.0.1,localhost,::1")
	script := "#!/bin/sh\ncd " + termtext.ShellQuote(w.proj) + " || exit 1\n"
	script += harness.ShellExports(env)
	script += "exec " + termtext.ShellQuote(bin) + " --permission-mode default\n"
	run := filepath.Join(w.home, "run-claude.sh")
	if err := os.WriteFile(run, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c := tmuxCLI{sock: fmt.Sprintf("cib-outlive-%d", os.Getpid()), session: "claude"}
	if out, err := c.tmux("-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-s", c.session, run); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	out, _ := c.tmux("display-message", "-p", "-t", c.session, "#{pane_pid}")
	cliPID, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("claude's last screen:\n%s", c.screen())
		}
		c.tmux("kill-server")
		// The CLI writes its config as it exits: wait, so that nothing writes into the temp dirs
		// while they are removed.
		if cliPID > 0 && !poll(func() bool { return processGone(cliPID) }) {
			t.Errorf("claude (pid %d) did not exit", cliPID)
		}
	})
	return c
}

// The must-show of issue 29 with the real CLI in tmux: Claude is connected;
// Neovim quits; the CLI stays connected (no reconnect: the proposal's owner is
// still the first connection) and the lock stays; Claude proposes an Edit
// meanwhile; Neovim starts again: the proposal is on screen within 1 s of the
// start, :w accepts it, the CLI writes the file.
//
// The wait after Neovim quits is OUTLIVE_WAIT (default 16 s: longer than the
// CLI's whole reconnect window, 0.2+1+2+4+8 s, so a dropped connection would
// show as a reconnect or as the CLI giving up). The issue asks for 60 s; the
// bridge keeps a connected Claude for as long as it is connected, so a longer
// wait only adds the keepalive pings (every 30 s), which OUTLIVE_WAIT=60s runs.
func TestRealClaudeOutlivesNeovim(t *testing.T) {
	wait := 16 * time.Second
	if v := os.Getenv("OUTLIVE_WAIT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatal(err)
		}
		wait = d
	}
	w := newWorkspace(t)
	path := filepath.Join(w.proj, "hello.txt")
	if err := os.WriteFile(path, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	api := fakeapi.New()
	t.Cleanup(api.Close)
	n1 := w.start(t)
	var port int
	n1.luaInto(t, &port, `return require("claude-ide-bridge").state().port`)
	pid, _ := bridgeState(t, n1)
	cli := startTmuxCLI(t, w, port, api)
	// Facts: "With no network, expect up to ~20 s before it connects".
	if !harness.Poll(90*time.Second, func() bool {
		var c int
		n1.luaInto(t, &c, `return require("claude-ide-bridge").state().clients`)
		return c == 1 && strings.Contains(cli.screen(), "for shortcuts")
	}) {
		t.Fatalf("the CLI did not connect; screen:\n%s", cli.screen())
	}

	quit(t, n1)
	w.waitLockPID(t, pid)
	t.Logf("Neovim quit; waiting %v with no editor", wait)
	time.Sleep(wait) // the test's subject: nothing may happen meanwhile
	if processGone(pid) {
		t.Fatal("the bridge ended while the CLI was connected")
	}
	w.waitLockPID(t, pid)

	api.Push(fakeapi.Edit(path, "world", "there", "EDIT ACCEPTED")...)
	cli.typeLine(t, "edit hello")
	api.MustMain(t, 60*time.Second, 2, cli.screen) // the CLI went on to the Edit
	// The CLI waits on its openDiff (its permission prompt stays in its terminal).
	if !harness.Poll(30*time.Second, func() bool { return strings.Contains(cli.screen(), "Do you want to make this edit") }) {
		t.Fatalf("no pending edit; screen:\n%s", cli.screen())
	}

	start := time.Now()
	n2 := w.start(t)
	if !harness.Poll(15*time.Second, func() bool {
		var d int
		n2.luaInto(t, &d, `return #require("claude-ide-bridge.diff").list()`)
		return d == 1
	}) {
		t.Fatalf("the proposal was not shown to the restarted Neovim; screen:\n%s", cli.screen())
	}
	var shown float64
	n2.luaInto(t, &shown, `return _G.NVT_shown or -1`)
	t.Logf("Neovim restarted: proposal shown %v after its start (%.1f ms after the plugin's setup, in Neovim)", time.Since(start).Round(time.Millisecond), shown)
	if shown < 0 { // the time is bench/attach's (TestNeovimRestartAttaches says why)
		t.Error("ClaudeCodeDiffOpened never fired for the proposal shown")
	}
	if _, attached := bridgeState(t, n2); !attached {
		t.Error("the restarted Neovim did not attach")
	}
	// No reconnect: the proposal belongs to the CLI's first and only connection.
	var owners []int
	n2.luaInto(t, &owners, `local done, out = false, {}
		require("claude-ide-bridge.state").request("status", vim.empty_dict(), function(_, r)
			for _, d in ipairs(r and r.diffs or {}) do out[#out + 1] = d.owner end
			done = true
		end)
		vim.wait(5000, function() return done end)
		return out`)
	if len(owners) != 1 || owners[0] != 1 {
		t.Errorf("proposal owners %v, want [1]: the CLI reconnected", owners)
	}
	n2.ex(t, "write")
	if !harness.Poll(60*time.Second, func() bool { return harness.FileText(path) == "hello there\n" }) {
		t.Fatalf("the CLI did not write the accepted text; file %q; screen:\n%s", harness.FileText(path), cli.screen())
	}
	if !harness.Poll(60*time.Second, func() bool { return strings.Contains(cli.screen(), "EDIT ACCEPTED") }) {
		t.Fatalf("the turn did not finish; screen:\n%s", cli.screen())
	}
	n2.ex(t, "ClaudeCodeStop")
	waitFor(t, "the bridge to end", func() bool { return processGone(pid) })
}
