package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/procstat"
	"github.com/claude-ide-bridge/claude-ide-bridge/bench/texts"
)

// nvim is one headless Neovim with bench.lua, driven over its --listen socket.
type nvim struct {
	bin, sock string
	cmd       *exec.Cmd
	done      chan struct{}
}

// expr evaluates a Vim expression with `nvim --remote-expr` (bounded: 30 s).
func (n *nvim) expr(e string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, n.bin, "--clean", "--headless", "-u", "NONE", "-i", "NONE", "--server", n.sock, "--remote-expr", e)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out // the answer is printed on stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("remote-expr %s: %v: %s", e, err, out.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// call runs a Bench* function of bench.lua; args are numbers only (no quoting needed).
func (n *nvim) call(fn string, args ...int) (string, error) {
	a := make([]string, len(args))
	for i, v := range args {
		a[i] = strconv.Itoa(v)
	}
	return n.expr("luaeval('" + fn + "(" + strings.Join(a, ",") + ")')")
}

type state struct {
	MaxGapUS float64 `json:"max_gap_us"`
	DiffAt   int64   `json:"diff_at"`
	TWrite   int64   `json:"t_write"`
	DiffWins int     `json:"diff_wins"`
}

func (n *nvim) state() (state, error) {
	var s state
	out, err := n.call("BenchState")
	if err == nil {
		err = json.Unmarshal([]byte(out), &s)
	}
	return s, err
}

func (n *nvim) close() {
	n.expr(`execute('qa!')`)
	select {
	case <-n.done:
	case <-time.After(10 * time.Second):
		n.cmd.Process.Kill()
		<-n.done
	}
}

func usTime(us int64) time.Time { return time.UnixMicro(us) }

func pollUntil(d time.Duration, f func() (bool, error)) error {
	end := time.Now().Add(d)
	for {
		ok, err := f()
		if ok || err != nil {
			return err
		}
		if time.Now().After(end) {
			return errors.New("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// session starts Neovim with target's plugin, connects the Claude client and measures every
// row once. The metrics measured before an error are returned with it.
func session(cfg config, target, tmp string) (metrics, error) {
	m := metrics{}
	dir, err := os.MkdirTemp(tmp, target)
	if err != nil {
		return m, err
	}
	proj, ccfg, home := filepath.Join(dir, "proj"), filepath.Join(dir, "cfg"), filepath.Join(dir, "home")
	for _, d := range []string{proj, ccfg, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return m, err
		}
	}
	helper := filepath.Join(dir, "bench.lua")
	selFile := filepath.Join(proj, "sel.txt")
	var lines strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&lines, "line %d of the selection file\n", i)
	}
	if err := os.WriteFile(helper, benchLua, 0o644); err != nil {
		return m, err
	}
	if err := os.WriteFile(selFile, []byte(lines.String()), 0o644); err != nil {
		return m, err
	}
	pluginDir := cfg.plugin
	if target == "peer" {
		pluginDir = cfg.peerDir
	}
	n := &nvim{bin: cfg.nvim, sock: filepath.Join(dir, "nvim.sock"), done: make(chan struct{})}
	n.cmd = exec.Command(cfg.nvim, "--headless", "--clean", "-u", "NONE", "-i", "NONE", "-n",
		"--listen", n.sock, "--cmd", "set rtp^="+pluginDir, "--cmd", "luafile "+helper)
	n.cmd.Dir = proj
	n.cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+ccfg, "HOME="+home, "BENCH_TARGET="+target,
		"BENCH_BRIDGE_BIN="+cfg.bridge, "BENCH_SEL_FILE="+selFile)
	var logs bytes.Buffer
	n.cmd.Stdout, n.cmd.Stderr = &logs, &logs
	if err := n.cmd.Start(); err != nil {
		return m, err
	}
	go func() { n.cmd.Wait(); close(n.done) }()
	defer n.close()
	if err := pollUntil(15*time.Second, func() (bool, error) { _, err := n.expr("1"); return err == nil, nil }); err != nil {
		return m, fmt.Errorf("nvim did not answer: %s", logs.String())
	}
	if out, err := n.call("BenchSetup"); err != nil || out != "ok" {
		return m, fmt.Errorf("setup: %q %v", out, err)
	}
	port, token, err := readLock(filepath.Join(ccfg, "ide"))
	if err != nil {
		return m, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := dialClaude(ctx, port, token)
	if err != nil {
		return m, fmt.Errorf("dial: %w", err)
	}
	defer c.Close()
	if err := c.Handshake(ctx); err != nil {
		return m, fmt.Errorf("handshake: %w", err)
	}

	// Idle memory: Neovim (+ its bridge child) after settling with one client.
	time.Sleep(cfg.settle)
	// Total RSS, and the memory the kernel cannot drop (RssAnon + RssShmem; not the clean
	// program text it can read back from the binary), with the bridge's mapped files beside.
	nvimPid := n.cmd.Process.Pid
	pids := append([]int{nvimPid}, procstat.Children(nvimPid)...)
	var sum procstat.Memory
	for _, p := range pids {
		mem, err := procstat.ReadMemory(p)
		if err != nil {
			return m, fmt.Errorf("memory of pid %d: %w", p, err)
		}
		sum = sum.Add(mem)
		if p != nvimPid {
			m["idle_bridge_file_mib"] += float64(mem.File) / 1024
			m["idle_bridge_private_mib"] += float64(mem.Private()) / 1024
		}
	}
	m["idle_rss_mib"] = float64(sum.RSS) / 1024
	m["idle_private_mib"] = float64(sum.Private()) / 1024
	m["procs"] = float64(len(pids))

	// Selection latency: cursor moved (stamped in Neovim) -> selection_changed at the client.
	var lat []float64
	for i := 0; i < cfg.selections; i++ {
		line := 10 + i*7
		c.drain()
		if _, err := n.call("BenchMove", line); err != nil {
			return m, err
		}
		at, err := c.waitSelection(line-1, 10*time.Second)
		if err != nil {
			return m, fmt.Errorf("selection of line %d: %w", line, err)
		}
		out, err := n.call("BenchMoved", line)
		if err != nil {
			return m, err
		}
		us, _ := strconv.ParseInt(out, 10, 64)
		lat = append(lat, ms(at.Sub(usTime(us))))
		time.Sleep(150 * time.Millisecond) // past both debounces
	}
	m["selection_ms"] = median(lat)

	// openDiff: visible, stall while it opens, accept.
	for i, size := range cfg.sizes {
		if err := diffRound(ctx, n, c, proj, i, realistic(size), m); err != nil {
			return m, fmt.Errorf("openDiff %s: %w", sizeName(size), err)
		}
	}
	if cfg.repeated > 0 {
		if err := diffRound(ctx, n, c, proj, len(cfg.sizes), repeated(cfg.repeated), m); err != nil {
			return m, fmt.Errorf("openDiff %s repeated: %w", sizeName(cfg.repeated), err)
		}
	}

	// CPU under 16 clients while the cursor moves every wiggleMs.
	var more []*claude
	defer func() {
		for _, x := range more {
			x.Close()
		}
	}()
	for len(more) < cfg.clients-1 {
		x, err := dialClaude(ctx, port, token)
		if err != nil {
			return m, fmt.Errorf("client %d: %w", len(more)+2, err)
		}
		more = append(more, x)
		if err := x.Handshake(ctx); err != nil {
			return m, fmt.Errorf("client %d handshake: %w", len(more)+1, err)
		}
	}
	time.Sleep(500 * time.Millisecond)
	pids = append([]int{n.cmd.Process.Pid}, procstat.Children(n.cmd.Process.Pid)...)
	cpu0 := cpuOf(pids)
	t0 := time.Now()
	count := int(cfg.cpuFor / (time.Duration(cfg.wiggleMs) * time.Millisecond))
	before := c.selections()
	if _, err := n.call("BenchWiggle", cfg.wiggleMs, count); err != nil {
		return m, err
	}
	time.Sleep(cfg.cpuFor + 300*time.Millisecond)
	m["cpu_pct"] = 100 * (cpuOf(pids) - cpu0) / time.Since(t0).Seconds()
	m["cpu_selections"] = float64(c.selections() - before)
	if m["cpu_selections"] == 0 {
		delete(m, "cpu_pct") // not the row's load
		return m, errors.New("no selection_changed during the CPU row")
	}
	return m, nil
}

// diffText is one openDiff's file: the old text on disk, the proposal, the metrics' suffix.
type diffText struct {
	old, new, key string
}

// realistic is issue 27's text (bench/texts): distinct source-like lines, 10 hunks.
func realistic(size int) diffText {
	p := texts.Realistic(size, 10, 1)
	return diffText{p.Old, p.New, sizeName(size)}
}

// repeated is the earlier payload, kept as one row: one 80-column line repeated, the old file
// one line.
func repeated(size int) diffText {
	return diffText{"old\n", texts.Repeated(size), sizeName(size) + "-repeated"}
}

// diffRound sends openDiff of t, times the diff on screen and the longest stall, then :w in the
// proposal -> FILE_SAVED, then close_tab.
func diffRound(ctx context.Context, n *nvim, c *claude, proj string, i int, t diffText, m metrics) error {
	path := filepath.Join(proj, fmt.Sprintf("big%d.txt", i))
	if err := os.WriteFile(path, []byte(t.old), 0o644); err != nil {
		return err
	}
	content := t.new
	tab := fmt.Sprintf("✻ [Claude Code] big%d.txt (%06x) ⧉", i, i)
	if _, err := n.call("BenchArm"); err != nil {
		return err
	}
	// CPU time is robust to a shared machine where the wall clock is not: Neovim's (+ the
	// bridge's) from the request until the diff is visible and settled.
	pids := append([]int{n.cmd.Process.Pid}, procstat.Children(n.cmd.Process.Pid)...)
	cpu0 := cpuOf(pids)
	t0 := time.Now()
	ch, err := c.Start(ctx, "tools/call", map[string]any{"name": "openDiff", "arguments": map[string]any{
		"old_file_path": path, "new_file_path": path, "new_file_contents": content, "tab_name": tab}})
	if err != nil {
		return err
	}
	var st state
	if err := pollUntil(60*time.Second, func() (bool, error) {
		var err error
		st, err = n.state()
		return st.DiffAt != 0, err
	}); err != nil {
		return fmt.Errorf("diff not visible: %w", err)
	}
	time.Sleep(300 * time.Millisecond) // let the open finish its deferred work
	if st, err = n.state(); err != nil {
		return err
	}
	key := t.key
	m["open_cpu_ms_"+key] = 1000 * (cpuOf(pids) - cpu0)
	m["visible_ms_"+key] = ms(usTime(st.DiffAt).Sub(t0))
	m["stall_ms_"+key] = st.MaxGapUS / 1000
	if out, err := n.call("BenchAccept"); err != nil || out != "ok" {
		return fmt.Errorf("accept: %q %v", out, err)
	}
	ans, err := c.Answer(ctx, ch)
	if err != nil {
		return err
	}
	res, at := ans.Msg, ans.At
	if !bytes.Contains(res, []byte("FILE_SAVED")) {
		return fmt.Errorf("openDiff answered %.200s", res)
	}
	if st, err = n.state(); err != nil {
		return err
	}
	m["accept_ms_"+key] = ms(at.Sub(usTime(st.TWrite)))
	if _, err := c.Call(ctx, "tools/call", map[string]any{"name": "close_tab", "arguments": map[string]any{"tab_name": tab}}); err != nil {
		return err
	}
	return pollUntil(20*time.Second, func() (bool, error) { s, err := n.state(); return s.DiffWins == 0, err })
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return strconv.Itoa(n>>20) + "MiB"
	}
	return strconv.Itoa(n>>10) + "KiB"
}

func cpuOf(pids []int) float64 {
	s := 0.0
	for _, p := range pids {
		if v, err := procstat.CPUSeconds(p); err == nil {
			s += v
		}
	}
	return s
}

// readLock waits (15 s) for the one lock file in dir and returns its port and token.
func readLock(dir string) (int, string, error) {
	var port int
	var token string
	err := pollUntil(15*time.Second, func() (bool, error) {
		names, _ := filepath.Glob(filepath.Join(dir, "*.lock"))
		if len(names) != 1 {
			return false, nil
		}
		b, err := os.ReadFile(names[0])
		if err != nil {
			return false, nil
		}
		var l struct {
			AuthToken string `json:"authToken"`
		}
		if json.Unmarshal(b, &l) != nil || l.AuthToken == "" {
			return false, nil // still being written
		}
		port, err = strconv.Atoi(strings.TrimSuffix(filepath.Base(names[0]), ".lock"))
		token = l.AuthToken
		return true, err
	})
	if err != nil {
		return 0, "", fmt.Errorf("lock file in %s: %w", dir, err)
	}
	return port, token, nil
}
