// Command attach measures what a Neovim restart costs with a bridge that outlived the last
// Neovim (issue 29): the time from Neovim's start to attached-and-shown (the bridge answered,
// the pending proposal on screen), next to the time from Neovim's start to a fresh bridge's
// ready. Headless Neovim with the plugin, the real bridge, a Claude-side WebSocket client.
//
//	go build -o /tmp/cib ./cmd/claude-ide-bridge
//	go run ./bench/attach -bridge /tmp/cib -nvim "$(scripts/newest-neovim)" -n 10
//
// Each repetition: Neovim starts the bridge (fresh: its start to ready), a Claude connects,
// Neovim quits (the bridge stays for Claude), Claude proposes an edit, Neovim starts again
// (restart: its start to the proposal shown, ClaudeCodeDiffOpened). Times are taken inside
// Neovim with the wall clock and compared with the wall clock before the process was spawned.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/claudews"
)

// script runs inside Neovim: set the plugin up, write the wall-clock time (s) of the event the
// bench waits for (ready, or the first diff shown) to NVB_OUT, then leave as a user does (:qa;
// with stop, :ClaudeCodeStop first).
const script = `
local out, want, stop = os.getenv("NVB_OUT"), os.getenv("NVB_WANT"), os.getenv("NVB_STOP") == "1"
local function now() local s, us = (vim.uv or vim.loop).gettimeofday() return s + us / 1e6 end
local function done(t)
  local f = io.open(out, "w") f:write(string.format("%.6f", t)) f:close()
end
vim.api.nvim_create_autocmd("User", { pattern = "ClaudeCodeDiffOpened", once = true, callback = function()
  if want == "shown" then done(now()) end
end })
require("claude-ide-bridge").setup({ bin = os.getenv("NVB_BRIDGE"), terminal = { provider = "none" } })
if want == "ready" then
  vim.wait(10000, function() return require("claude-ide-bridge").state().ready end, 1)
  done(now())
  -- Stay until Claude is connected, so that the bridge outlives this Neovim.
  vim.wait(10000, function() return (require("claude-ide-bridge").state().clients or 0) > 0 end, 5)
else
  vim.wait(10000, function() local f = io.open(out) if f then f:close() return true end return false end, 1)
end
if stop then vim.cmd("ClaudeCodeStop") end
vim.cmd("qa!")
`

func main() {
	bridge := flag.String("bridge", "", "the claude-ide-bridge binary")
	nvimBin := flag.String("nvim", "nvim", "the Neovim to run")
	plugin := flag.String("plugin", "", "the plugin's directory (default: this repository)")
	n := flag.Int("n", 10, "repetitions")
	flag.Parse()
	if *bridge == "" {
		fmt.Fprintln(os.Stderr, "usage: attach -bridge BIN [-nvim BIN] [-n N]")
		os.Exit(2)
	}
	if *plugin == "" {
		_, file, _, _ := runtime.Caller(0)
		*plugin = filepath.Dir(filepath.Dir(filepath.Dir(file)))
	}
	var fresh, restart []time.Duration
	for i := 0; i < *n; i++ {
		f, r, err := once(*bridge, *nvimBin, *plugin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "attach:", err)
			os.Exit(1)
		}
		fresh, restart = append(fresh, f), append(restart, r)
	}
	out, _ := exec.Command(*nvimBin, "--version").Output()
	first, _, _ := strings.Cut(string(out), "\n")
	fmt.Printf("%s, %d repetitions (ms: median, min, max)\n", first, *n)
	fmt.Printf("| fresh start: Neovim start to bridge ready | %s |\n", summary(fresh))
	fmt.Printf("| restart: Neovim start to attached and the pending proposal shown | %s |\n", summary(restart))
}

func summary(ds []time.Duration) string {
	slices.Sort(ds)
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) }
	return ms(ds[len(ds)/2]) + " | " + ms(ds[0]) + " | " + ms(ds[len(ds)-1])
}

func once(bridge, nvimBin, plugin string) (fresh, restart time.Duration, err error) {
	root, err := os.MkdirTemp("", "bench-attach-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(root)
	root, _ = filepath.EvalSymlinks(root)
	proj, cfg, home := filepath.Join(root, "proj"), filepath.Join(root, "cfg"), filepath.Join(root, "home")
	for _, d := range []string{proj, cfg, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return 0, 0, err
		}
	}
	scriptPath := filepath.Join(root, "bench.lua")
	if err := os.WriteFile(scriptPath, []byte(script), 0o644); err != nil {
		return 0, 0, err
	}
	start := func(want string, stop bool) (*exec.Cmd, string, time.Time, error) {
		out := filepath.Join(root, want+".t")
		cmd := exec.Command(nvimBin, "--headless", "--clean", "-u", "NONE", "-i", "NONE", "-n",
			"--cmd", "set rtp^="+plugin, "-c", "luafile "+scriptPath)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+cfg, "HOME="+home, "NVB_OUT="+out, "NVB_WANT="+want,
			"NVB_BRIDGE="+bridge, "NVB_STOP="+map[bool]string{true: "1", false: "0"}[stop])
		t0 := time.Now()
		return cmd, out, t0, cmd.Start()
	}
	took := func(out string, t0 time.Time) (time.Duration, error) {
		data, err := os.ReadFile(out)
		if err != nil {
			return 0, err
		}
		s, err := strconv.ParseFloat(strings.TrimSpace(string(data)), 64)
		if err != nil {
			return 0, err
		}
		return time.Duration(s*1e9) - time.Duration(t0.UnixNano()), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// Fresh: Neovim starts its bridge; Claude connects; Neovim quits, the bridge stays.
	n1, out1, t0, err := start("ready", false)
	if err != nil {
		return 0, 0, err
	}
	var lock struct {
		AuthToken string `json:"authToken"`
	}
	var port int
	for deadline := time.Now().Add(10 * time.Second); port == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("no lock file")
		}
		names, _ := filepath.Glob(filepath.Join(cfg, "ide", "*.lock"))
		if len(names) == 1 {
			data, _ := os.ReadFile(names[0])
			if json.Unmarshal(data, &lock) == nil && lock.AuthToken != "" {
				port, _ = strconv.Atoi(strings.TrimSuffix(filepath.Base(names[0]), ".lock"))
			}
		}
	}
	c, err := claudews.Dial(ctx, port, lock.AuthToken, nil)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	if err := c.Handshake(ctx); err != nil {
		return 0, 0, err
	}
	if err := n1.Wait(); err != nil {
		return 0, 0, fmt.Errorf("first Neovim: %w", err)
	}
	if fresh, err = took(out1, t0); err != nil {
		return 0, 0, err
	}
	// Claude proposes an edit with no editor attached: it stays pending.
	path := filepath.Join(proj, "a.txt")
	os.WriteFile(path, []byte("old\n"), 0o644)
	if _, err := c.Start(ctx, "tools/call", map[string]any{"name": "openDiff", "arguments": map[string]any{
		"old_file_path": path, "new_file_path": path, "new_file_contents": "new\n", "tab_name": "bench ⧉"}}); err != nil {
		return 0, 0, err
	}
	time.Sleep(50 * time.Millisecond) // let the bridge take it before the next Neovim (not measured)

	// Restart: the next Neovim attaches and is shown the proposal; it then stops the bridge.
	n2, out2, t1, err := start("shown", true)
	if err != nil {
		return 0, 0, err
	}
	if err := n2.Wait(); err != nil {
		return 0, 0, fmt.Errorf("second Neovim: %w", err)
	}
	if restart, err = took(out2, t1); err != nil {
		return 0, 0, fmt.Errorf("the proposal was not shown: %w", err)
	}
	select {
	case <-c.Done():
	case <-ctx.Done():
		return 0, 0, fmt.Errorf("the bridge did not end with :ClaudeCodeStop")
	}
	return fresh, restart, nil
}
