// Command nvimpeer measures our Neovim plugin (with the bridge, `serve --stdio`) side by side
// with the reference plugin coder/claudecode.nvim (issue 14 item 2), both in headless Neovim,
// driven by the same Claude-side WebSocket client: it reads the lock file from a private
// CLAUDE_CONFIG_DIR/ide, dials with its token and speaks MCP as the CLI does. The Neovim side
// is bench.lua (embedded). Repetitions interleave the two plugins. It writes every number as
// JSON and a Markdown table of medians; bench/run puts that into docs/performance.md.
//
//	nvimpeer -nvim BIN -bridge BIN -plugin DIR -peer-tar TGZ [-reps 5] [-smoke] [-sizes 1,10] -json OUT -md OUT
//
// If the peer tarball or the Neovim binary is missing it prints a SKIP line and exits 0. With
// -smoke, an error measuring our plugin is fatal (exit 1); the peer's errors are listed only.
package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

//go:embed bench.lua
var benchLua []byte

func main() {
	var (
		nvimBin   = flag.String("nvim", "", "Neovim binary (the newest: scripts/newest-neovim)")
		bridgeBin = flag.String("bridge", "", "claude-ide-bridge binary")
		plugin    = flag.String("plugin", "", "our plugin's checkout (the repository root)")
		peerTar   = flag.String("peer-tar", "", "claudecode.nvim tarball")
		reps      = flag.Int("reps", 5, "repetitions")
		smoke     = flag.Bool("smoke", false, "one repetition, 64 KiB and 1 MiB diffs, short CPU window")
		jsonOut   = flag.String("json", "", "write all numbers here")
		mdOut     = flag.String("md", "", "write the Markdown table here")
		sizesFlag = flag.String("sizes", "", "openDiff sizes in MiB, comma-separated (default 1,10; smoke 64 KiB and 1)")
	)
	flag.Parse()
	if why := missing(*nvimBin, *peerTar); why != "" {
		fmt.Println("SKIP nvimpeer:", why)
		return
	}
	if *bridgeBin == "" || *plugin == "" {
		flag.Usage()
		os.Exit(2)
	}
	cfg := config{nvim: *nvimBin, bridge: *bridgeBin, plugin: *plugin, sizes: []int{1 << 20, 10 << 20}, repeated: 10 << 20,
		selections: 15, clients: 16, cpuFor: 10 * time.Second, wiggleMs: 20, settle: 2 * time.Second}
	if *smoke {
		*reps = 1
		cfg.sizes, cfg.repeated, cfg.selections, cfg.cpuFor, cfg.settle = []int{64 << 10, 1 << 20}, 64<<10, 3, 2*time.Second, time.Second
	}
	if *sizesFlag != "" {
		cfg.sizes = nil
		for _, f := range strings.Split(*sizesFlag, ",") {
			mib, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || mib <= 0 {
				fmt.Fprintf(os.Stderr, "nvimpeer: -sizes: %q is not a number of MiB\n", f)
				os.Exit(2)
			}
			cfg.sizes = append(cfg.sizes, mib<<20)
		}
	}
	if abs, err := filepath.Abs(cfg.plugin); err == nil {
		cfg.plugin = abs // Neovim runs in the project folder: a relative 'runtimepath' would miss
	}
	if err := run(cfg, *peerTar, *reps, *smoke, *jsonOut, *mdOut); err != nil {
		fmt.Fprintln(os.Stderr, "nvimpeer:", err)
		os.Exit(1)
	}
}

// missing says what of the Neovim binary and the peer tarball is absent ("" when both are there).
func missing(nvimBin, peerTar string) string {
	for _, f := range []struct{ what, path string }{{"Neovim", nvimBin}, {"peer tarball", peerTar}} {
		if _, err := os.Stat(f.path); f.path == "" || err != nil {
			return fmt.Sprintf("%s not found (%q)", f.what, f.path)
		}
	}
	return ""
}

type config struct {
	nvim, bridge, plugin string
	peerDir              string // the unpacked reference plugin
	sizes                []int  // openDiff sizes (realistic text)
	repeated             int    // one more openDiff of the earlier repeated-line payload of this size; 0: none
	selections           int    // cursor moves timed per repetition
	clients              int    // Claude clients during the CPU row
	cpuFor               time.Duration
	wiggleMs             int
	settle               time.Duration // before the idle RSS
}

func run(cfg config, peerTar string, reps int, strict bool, jsonOut, mdOut string) error {
	tmp, err := os.MkdirTemp("", "nvimpeer")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if out, err := exec.Command("tar", "-xzf", peerTar, "-C", tmp).CombinedOutput(); err != nil {
		return fmt.Errorf("unpack %s: %v: %s", peerTar, err, out)
	}
	cfg.peerDir = filepath.Join(tmp, "claudecode.nvim")
	if _, err := os.Stat(filepath.Join(cfg.peerDir, "lua", "claudecode", "init.lua")); err != nil {
		return errors.New("the tarball has no claudecode.nvim/lua/claudecode/init.lua")
	}
	res := results{Reps: reps, Sizes: cfg.sizes, Repeated: cfg.repeated, Samples: map[string]map[string][]float64{}}
	for _, t := range targets {
		res.Samples[t] = map[string][]float64{}
	}
	for r := 0; r < reps; r++ {
		for i := range targets {
			t := targets[(i+r)%len(targets)] // alternate which goes first
			fmt.Fprintf(os.Stderr, "== rep %d/%d: %s\n", r+1, reps, t)
			m, err := session(cfg, t, tmp)
			for k, v := range m {
				res.Samples[t][k] = append(res.Samples[t][k], v)
			}
			if err != nil {
				res.Errors = append(res.Errors, fmt.Sprintf("%s rep %d: %v", t, r+1, err))
				fmt.Fprintf(os.Stderr, "   %s: %v\n", t, err)
			}
		}
	}
	if err := res.write(jsonOut, mdOut); err != nil {
		return err
	}
	if len(res.Samples["ours"]) == 0 || len(res.Samples["peer"]) == 0 {
		return fmt.Errorf("a plugin measured nothing: %v", res.Errors)
	}
	// The smoke run (CI) fails when our plugin cannot be measured; the peer's trouble is reported
	// in the table, not ours to fail on.
	for _, e := range res.Errors {
		if strict && strings.HasPrefix(e, "ours ") {
			return fmt.Errorf("our plugin: %s", e)
		}
	}
	return nil
}

var targets = []string{"ours", "peer"}
