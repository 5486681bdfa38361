// Command driver measures the bridge against the Node baseline and the raw WebSocket limit in
// one run (issue 8). It spawns each sidecar, acts as its editor on stdio (newline framing) and
// as N Claude clients on WebSocket, and reads RSS and CPU from /proc. Repetitions interleave the
// targets so drift hits all of them alike. It writes every number as JSON and the table of
// medians and ratios as Markdown; bench/run puts that into docs/performance.md.
//
//	driver -bridge BIN -node-sidecar JS -echo BIN [-reps 5] [-smoke] [-before BIN -before-label REV] -json OUT -md OUT
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	var (
		bridgeBin = flag.String("bridge", "", "claude-ide-bridge binary")
		nodeJS    = flag.String("node-sidecar", "", "bench/node/sidecar.js")
		nodeBin   = flag.String("node", "node", "node binary")
		echoBin   = flag.String("echo", "", "bench/echo binary")
		reps      = flag.Int("reps", 5, "repetitions")
		smoke     = flag.Bool("smoke", false, "each measurement once, tiny sizes (CI)")
		jsonOut   = flag.String("json", "", "write all numbers here")
		mdOut     = flag.String("md", "", "write the Markdown table here")
		logPath   = flag.String("log", "", "sidecars' stderr (default: discarded)")
		idle      = flag.Duration("idle", 0, "override the idle CPU window (default 30s, smoke 1s)")
		diffBytes = flag.Int("diff-bytes", 0, "override the openDiff file size (default 10 MiB, smoke 64 KiB)")
		diffIters = flag.Int("diff-iters", 0, "override the openDiff round trips per repetition")
		before    = flag.String("before", "", "an earlier build of the bridge, measured in the same repetitions; adds a before/after table")
		label     = flag.String("before-label", "", "what -before was built from (a commit), for the table")
		only      = flag.String("only", "", "comma-separated subset to measure, for quick experiments: startup,idle,opendiff,earlier,serve,fanout,flood,clients,echo,node (default: all)")
		nodeCli   = flag.String("node-client", "", "bench/node/client.js: also time the openDiff rows from Node (ws); \"\" for none")
	)
	flag.Parse()
	if *bridgeBin == "" || *nodeJS == "" || *echoBin == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*bridgeBin, *nodeBin, *nodeJS, *echoBin, *reps, *smoke, overrides{*idle, *diffBytes, *diffIters, parseOnly(*only), *before, *label, *nodeCli}, *jsonOut, *mdOut, *logPath); err != nil {
		fmt.Fprintln(os.Stderr, "driver:", err)
		os.Exit(1)
	}
}

// overrides change single sizes for quick experiments; zero keeps the default.
type overrides struct {
	idle                 time.Duration
	diffBytes, diffIters int
	only                 map[string]bool // nil: everything
	before, beforeLabel  string          // -before, -before-label
	nodeClient           string          // -node-client
}

func parseOnly(s string) map[string]bool {
	if s == "" {
		return nil
	}
	m := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		m[strings.TrimSpace(part)] = true
	}
	return m
}

// wants reports whether measurement name runs in this invocation.
func (c config) wants(name string) bool { return c.only == nil || c.only[name] }

func run(bridgeBin, nodeBin, nodeJS, echoBin string, reps int, smoke bool, o overrides, jsonOut, mdOut, logPath string) error {
	cfg := config{
		startupSamples: 10, idle: 30 * time.Second, diffBytes: 10 << 20, diffIters: 7,
		fanClients: 16, fanUpdates: 200, floodRate: 1000, floodFor: 10 * time.Second,
		manyClients: 256, debounce: 50 * time.Millisecond, logs: io.Discard,
	}
	if smoke {
		reps = 1
		cfg.startupSamples, cfg.idle, cfg.diffBytes, cfg.diffIters = 1, time.Second, 64<<10, 1
		cfg.fanUpdates, cfg.floodFor, cfg.manyClients = 20, time.Second, 32
	}
	if o.idle > 0 {
		cfg.idle = o.idle
	}
	if o.diffBytes > 0 {
		cfg.diffBytes = o.diffBytes
	}
	if o.diffIters > 0 {
		cfg.diffIters = o.diffIters
	}
	cfg.only = o.only
	if logPath != "" {
		f, err := os.Create(logPath)
		if err != nil {
			return err
		}
		defer f.Close()
		cfg.logs = f
	}
	ws, err := os.MkdirTemp("", "bench-ws-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(ws)
	cfg.workspace = ws
	cfg.text, cfg.earlier = realisticPayload(cfg.diffBytes), earlierPayload(cfg.diffBytes)
	if err := writeWorkspace(ws, cfg.text, cfg.earlier); err != nil {
		return err
	}
	if o.nodeClient != "" {
		// The Node client reads the proposal from a file outside the workspace.
		cfg.nodeClient, cfg.node = o.nodeClient, nodeBin
		tmp, err := os.MkdirTemp("", "bench-text-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		cfg.textFile, cfg.earlierFile = filepath.Join(tmp, "text.new"), filepath.Join(tmp, "earlier.new")
		if err := os.WriteFile(cfg.textFile, []byte(cfg.text.new), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(cfg.earlierFile, []byte(cfg.earlier.new), 0o644); err != nil {
			return err
		}
	}
	targets := []target{{"bridge", []string{bridgeBin, "serve", "--stdio", "--max-clients", "300"}}}
	if o.before != "" {
		targets = append(targets, target{"before", []string{o.before, "serve", "--stdio", "--max-clients", "300"}})
	}
	if cfg.wants("node") {
		targets = append(targets, target{"node", []string{nodeBin, nodeJS}})
	}
	res := results{Reps: reps, Smoke: smoke, DiffBytes: cfg.diffBytes, Debounce: ms(cfg.debounce), Runs: map[string][]metrics{}, Before: o.beforeLabel}
	for rep := 1; rep <= reps; rep++ {
		for _, t := range targets {
			fmt.Fprintf(os.Stderr, "rep %d/%d %s: start-up", rep, reps, t.name)
			m := metrics{}
			if cfg.wants("startup") {
				st, err := measureStartup(t, cfg)
				if err != nil {
					return fmt.Errorf("%s start-up: %w", t.name, err)
				}
				m["startup_ms"] = st
			}
			fmt.Fprintf(os.Stderr, ", session")
			sm, err := measureSession(t, cfg)
			if err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			cm := metrics{}
			if cfg.wants("clients") {
				fmt.Fprintf(os.Stderr, ", %d clients", cfg.manyClients)
				if cm, err = measureClients(t, cfg); err != nil {
					return fmt.Errorf("%s clients: %w", t.name, err)
				}
			}
			for _, part := range []metrics{sm, cm} {
				for k, v := range part {
					m[k] = v
				}
			}
			if t.name != "node" && cfg.wants("serve") {
				fmt.Fprintf(os.Stderr, ", serve --auto accept")
				sa, err := measureServeAuto(t.argv[0], cfg)
				if err != nil {
					return fmt.Errorf("serve --auto accept: %w", err)
				}
				for k, v := range sa {
					m[k] = v
				}
			}
			res.Runs[t.name] = append(res.Runs[t.name], m)
			fmt.Fprintln(os.Stderr)
		}
		if cfg.wants("node") && cfg.wants("serve") {
			// The baseline of `serve --auto accept`: the Node sidecar answering openDiff at once,
			// with no editor (as serve has none).
			fmt.Fprintf(os.Stderr, "rep %d/%d node answering at once\n", rep, reps)
			t := target{"nodeatonce", []string{"env", "BENCH_SIDECAR_AT_ONCE=1", nodeBin, nodeJS}}
			m, err := measureOpenDiff(t, cfg)
			if err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			res.Runs[t.name] = append(res.Runs[t.name], m)
		}
		if cfg.wants("echo") {
			fmt.Fprintf(os.Stderr, "rep %d/%d echo\n", rep, reps)
			em, err := measureEcho(echoBin, cfg)
			if err != nil {
				return fmt.Errorf("echo: %w", err)
			}
			fmt.Fprintf(os.Stderr, "rep %d/%d relay\n", rep, reps)
			rm, err := measureEcho(echoBin, cfg, "-relay")
			if err != nil {
				return fmt.Errorf("relay: %w", err)
			}
			em["relay_ms"] = rm["opendiff_ms"]
			if v, ok := rm["opendiff_nodecli_ms"]; ok {
				em["relay_nodecli_ms"] = v
			}
			res.Runs["echo"] = append(res.Runs["echo"], em)
		}
	}
	if jsonOut != "" {
		data, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(jsonOut, data, 0o644); err != nil {
			return err
		}
	}
	md := res.table(cfg)
	if mdOut != "" {
		return os.WriteFile(mdOut, []byte(md), 0o644)
	}
	fmt.Print(md)
	return nil
}
