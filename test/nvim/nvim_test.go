package nvimtest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// nvim is a headless Neovim listening on a socket, driven with
// `nvim --server <sock> --remote-expr` (present since 0.7).
type nvim struct {
	sock string
	cmd  *exec.Cmd
	done chan struct{}
	tmux string // startNvimTmux: the tmux server's socket, its UI's keys typed with send-keys
}

// helperLua evaluates a Lua chunk sent as JSON {code, args} and answers JSON
// {ok, r} or {err}.
const helperLua = `function _G.NVT(req)
  local r = vim.json.decode(req)
  local f, err = loadstring(r.code)
  if not f then return vim.json.encode({err = err}) end
  local args = r.args
  if type(args) ~= "table" then args = {} end
  local ok, res = pcall(f, unpack(args, 1, r.n or #args))
  if not ok then return vim.json.encode({err = tostring(res)}) end
  if res == nil then res = vim.NIL end
  return vim.json.encode({ok = true, r = res})
end`

// startNvim runs nvim in dir with env added to the test's environment.
func startNvim(t *testing.T, dir string, env ...string) *nvim {
	t.Helper()
	return startNvimIn(t, dir, false, env...)
}

// startNvimIn is startNvim; with tmux, Neovim runs with its UI in a tmux session (160x45)
// instead of --headless, for tests about the keys a user types (n.keys).
func startNvimIn(t *testing.T, dir string, tmux bool, env ...string) *nvim {
	t.Helper()
	sockDir, err := os.MkdirTemp("", "nvt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	n := &nvim{sock: filepath.Join(sockDir, "s"), done: make(chan struct{})}
	helper := filepath.Join(sockDir, "helper.lua")
	if err := os.WriteFile(helper, []byte(helperLua), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--headless", "--clean", "-u", "NONE", "-i", "NONE", "-n",
		"--listen", n.sock,
		"--cmd", "set rtp^=" + pluginDir,
		"--cmd", "luafile " + helper}
	n.cmd = exec.Command(nvimBin, args...)
	if tmux {
		// The tmux server runs Neovim; the command below ends at once. Cleanup quits Neovim,
		// then ends the server.
		n.tmux = filepath.Join(sockDir, "tmux")
		n.cmd = exec.Command("tmux", append([]string{"-S", n.tmux, "-f", "/dev/null", "new-session", "-d",
			"-x", "160", "-y", "45", "-c", dir, "--", nvimBin}, args[1:]...)...)
		env = append(env, "TERM=xterm-256color")
		t.Cleanup(func() { exec.Command("tmux", "-S", n.tmux, "kill-server").Run() })
	}
	n.cmd.Dir = dir
	n.cmd.Env = append(os.Environ(), env...)
	// What Neovim started (vim.lsp's servers, jobs) may end after it: wait for that too, so
	// that nothing writes into the test's temp dirs while they are removed.
	var kids []proc
	n.run(t, func() {
		kids = descendants(n.cmd.Process.Pid)
		if n.tmux != "" {
			var pid int
			if r, err := n.tryLua(`return vim.fn.getpid()`); err == nil && json.Unmarshal(r, &pid) == nil {
				kids = descendants(pid)
			}
		}
	}, func() {
		if n.tmux != "" {
			// The session ends with Neovim.
			harness.Poll(10*time.Second, func() bool { return exec.Command("tmux", "-S", n.tmux, "has-session").Run() != nil })
		}
		waitGone(t, kids)
	})
	return n
}

// run starts n.cmd, its output kept, and waits until Neovim answers. At the test's end it calls
// beforeQuit, quits Neovim with :qa! (which lets it end its jobs; SIGKILL after 10 s), calls
// afterExit, and logs the output if the test failed.
func (n *nvim) run(t *testing.T, beforeQuit, afterExit func()) {
	t.Helper()
	var logs bytes.Buffer
	n.cmd.Stdout, n.cmd.Stderr = &logs, &logs
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { n.cmd.Wait(); close(n.done) }()
	t.Cleanup(func() {
		beforeQuit()
		n.tryLua(`vim.schedule(function() vim.cmd("qa!") end)`)
		select {
		case <-n.done:
		case <-time.After(10 * time.Second):
			n.cmd.Process.Kill()
			<-n.done
		}
		afterExit()
		if t.Failed() && logs.Len() > 0 {
			t.Logf("nvim output:\n%s", logs.String())
		}
	})
	waitFor(t, "nvim socket", func() bool { _, err := os.Stat(n.sock); return err == nil })
	waitFor(t, "nvim answers", func() bool { _, err := n.tryLua(`return 1`); return err == nil })
}

type luaError string

func (e luaError) Error() string { return string(e) }

// tryLua runs code (a Lua chunk; its ... are args) and returns its JSON result.
func (n *nvim) tryLua(code string, args ...any) (json.RawMessage, error) {
	if args == nil {
		args = []any{}
	}
	req, err := json.Marshal(map[string]any{"code": code, "args": args, "n": len(args)})
	if err != nil {
		return nil, err
	}
	expr := "luaeval('NVT(_A)', '" + strings.ReplaceAll(string(req), "'", "''") + "')"
	cmd := exec.Command(nvimBin, "--clean", "--headless", "-u", "NONE", "-i", "NONE", "--server", n.sock, "--remote-expr", expr)
	var out bytes.Buffer
	// The answer of --remote-expr is printed on stderr.
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := runBounded(cmd, 20*time.Second); err != nil {
		return nil, err
	}
	var res struct {
		OK  bool            `json:"ok"`
		R   json.RawMessage `json:"r"`
		Err string          `json:"err"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &res); err != nil {
		return nil, luaError("remote-expr: " + out.String())
	}
	if !res.OK {
		return nil, luaError("lua: " + res.Err)
	}
	return res.R, nil
}

// lua runs code and fails the test on a Lua error.
func (n *nvim) lua(t *testing.T, code string, args ...any) json.RawMessage {
	t.Helper()
	r, err := n.tryLua(code, args...)
	if err != nil {
		t.Fatalf("%v\nin: %s", err, code)
	}
	return r
}

// luaInto runs code and decodes its result into v.
func (n *nvim) luaInto(t *testing.T, v any, code string, args ...any) {
	t.Helper()
	if err := json.Unmarshal(n.lua(t, code, args...), v); err != nil {
		t.Fatal(err)
	}
}

// input types keys as a user would (nvim_input: <Esc>, <C-v>, ...).
func (n *nvim) input(t *testing.T, keys string) {
	t.Helper()
	n.lua(t, `vim.api.nvim_input(...)`, keys)
}

// keys types keys in the tmux UI (startNvimIn with tmux), in tmux's notation, one per argument
// ("Escape", "C-w", "Enter"); literal text with typeText.
func (n *nvim) keys(t *testing.T, keys ...string) {
	t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-S", n.tmux, "send-keys"}, keys...)...).CombinedOutput(); err != nil {
		t.Fatalf("tmux send-keys %q: %v\n%s", keys, err, out)
	}
}

func (n *nvim) typeText(t *testing.T, s string) {
	t.Helper()
	n.keys(t, "-l", s)
}

// ex runs an Ex command.
func (n *nvim) ex(t *testing.T, cmd string) {
	t.Helper()
	n.lua(t, `vim.cmd(...)`, cmd)
}

// str runs code and returns its result as a Go string.
func (n *nvim) str(t *testing.T, code string, args ...any) string {
	t.Helper()
	var s string
	n.luaInto(t, &s, code, args...)
	return s
}

// waitLua polls code until it returns JSON equal to want.
func (n *nvim) waitLua(t *testing.T, want string, code string, args ...any) {
	t.Helper()
	var last string
	ok := poll(func() bool {
		r, err := n.tryLua(code, args...)
		if err != nil {
			last = err.Error()
			return false
		}
		last = string(r)
		return harness.JSONEqual(r, []byte(want))
	})
	if !ok {
		t.Fatalf("waiting for %s\n want %s\n last %s", code, want, last)
	}
}

func runBounded(cmd *exec.Cmd, d time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return luaError("timed out: " + strings.Join(cmd.Args, " "))
	}
}

// poll calls f until it is true, for at most 15 s.
func poll(f func() bool) bool { return harness.Poll(15*time.Second, f) }

func waitFor(t *testing.T, what string, f func() bool) {
	t.Helper()
	if !poll(f) {
		t.Fatalf("timed out waiting for %s", what)
	}
}
