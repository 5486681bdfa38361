package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/coder/websocket"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/child"
	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/procstat"
)

// config sizes one run; smoke shrinks every number.
type config struct {
	startupSamples int
	idle           time.Duration
	diffBytes      int
	diffIters      int
	fanClients     int
	fanUpdates     int
	floodRate      int
	floodFor       time.Duration
	manyClients    int
	debounce       time.Duration // the editors' selection debounce (Neovim plugin: 50 ms)
	workspace      string
	logs           io.Writer
	only           map[string]bool // -only: the measurements to run (nil: all)
	text, earlier  payload         // the openDiff texts: issue 27's realistic one, the earlier one
	nodeClient     string          // bench/node/client.js, "" for none (the Node client rows)
	node           string          // the node binary
	textFile       string          // text.new, for the Node client
	earlierFile    string          // earlier.new, the earlier payload for the Node client
}

// target is a sidecar to measure.
type target struct {
	name string
	argv []string
}

// metrics of one target in one repetition.
type metrics map[string]float64

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// percentile is the nearest-rank percentile p (0-100).
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func bounded(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// measureStartup times exec → initialize answered (lock file written) several times.
func measureStartup(t target, cfg config) (float64, error) {
	var xs []float64
	for range cfg.startupSamples {
		s, err := startSidecar(t.argv, cfg.workspace, cfg.logs)
		if err != nil {
			return 0, err
		}
		xs = append(xs, ms(s.Startup))
		if err := s.Close(); err != nil {
			return 0, err
		}
	}
	return median(xs), nil
}

// measureOpenDiff runs only the openDiff rounds of the realistic text (both clients) on a fresh
// sidecar.
func measureOpenDiff(t target, cfg config) (metrics, error) {
	o := cfg
	o.only = map[string]bool{"opendiff": true}
	return measureSession(t, o)
}

// measureSession runs one sidecar through idle, openDiff, fan-out and flood.
func measureSession(t target, cfg config) (metrics, error) {
	m := metrics{}
	s, err := startSidecar(t.argv, cfg.workspace, cfg.logs)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	ctx, cancel := bounded(5 * time.Minute)
	defer cancel()

	var clients []*claude
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	connect := func(n int) error {
		for len(clients) < n {
			c, err := dialClaude(ctx, s.Port, s.Token)
			if err != nil {
				return fmt.Errorf("client %d: %w", len(clients)+1, err)
			}
			clients = append(clients, c)
			if err := c.Handshake(ctx); err != nil {
				return fmt.Errorf("client %d handshake: %w", len(clients), err)
			}
		}
		wctx, wcancel := bounded(10 * time.Second)
		defer wcancel()
		if err := s.waitClients(wctx, n); err != nil {
			return err
		}
		return listening(s, clients, cfg)
	}

	// Idle: one client connected, nothing happening but keepalive.
	if err := connect(1); err != nil {
		return nil, err
	}
	if cfg.wants("idle") {
		time.Sleep(time.Second)
		mem, err := procstat.ReadMemory(s.Pid)
		if err != nil {
			return nil, err
		}
		m["idle_rss_mib"] = float64(mem.RSS) / 1024
		m["idle_private_mib"] = float64(mem.Private()) / 1024
		cpu0, _ := procstat.CPUSeconds(s.Pid)
		time.Sleep(cfg.idle)
		cpu1, _ := procstat.CPUSeconds(s.Pid)
		m["idle_cpu_s"] = cpu1 - cpu0
	}

	// openDiff round trip: client → sidecar → editor (showDiff) → sidecar (diffAccepted) → client.
	if cfg.wants("opendiff") {
		var d float64
		cpu, err := cpuPer(s.Pid, cfg.diffIters, func() (err error) {
			d, err = openDiffRoundTrips(ctx, s, clients[0], cfg, cfg.text)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("openDiff: %w", err)
		}
		m["opendiff_ms"], m["opendiff_cpu_ms"], m["opendiff_client_cpu_ms"] = d, cpu[0], cpu[1]
		if cfg.nodeClient != "" {
			var nd nodeResult
			cpu, err := cpuPer(s.Pid, cfg.diffIters, func() (err error) {
				nd, err = nodeRoundTrips(cfg, "claude", s.Port, s.Token)
				return err
			})
			if err != nil {
				return nil, fmt.Errorf("openDiff, Node client: %w", err)
			}
			nd.into(m, "opendiff_nodecli", cpu[0])
		}
		if cfg.wants("earlier") {
			d, err := openDiffRoundTrips(ctx, s, clients[0], cfg, cfg.earlier)
			if err != nil {
				return nil, fmt.Errorf("openDiff, earlier payload: %w", err)
			}
			m["opendiff_earlier_ms"] = d
			if cfg.nodeClient != "" {
				ec := cfg
				ec.text, ec.textFile = cfg.earlier, cfg.earlierFile
				nd, err := nodeRoundTrips(ec, "claude", s.Port, s.Token)
				if err != nil {
					return nil, fmt.Errorf("openDiff, earlier payload, Node client: %w", err)
				}
				m["opendiff_earlier_nodecli_ms"] = nd.ms
			}
		}
	}
	if !cfg.wants("fanout") && !cfg.wants("flood") {
		return m, nil
	}

	// Selection fan-out, one update at a time.
	if err := connect(cfg.fanClients); err != nil {
		return nil, err
	}
	if cfg.wants("fanout") {
		rx, read, err := fanout(ctx, s, clients, cfg)
		if err != nil {
			return nil, fmt.Errorf("fan-out: %w", err)
		}
		m["fan_p50_ms"], m["fan_p99_ms"] = rx[0], rx[1]
		m["fan_read_p50_ms"], m["fan_read_p99_ms"] = read[0], read[1]
	}
	if !cfg.wants("flood") {
		return m, nil
	}

	// Flood.
	f, err := flood(s, clients, cfg)
	if err != nil {
		return nil, fmt.Errorf("flood: %w", err)
	}
	for k, v := range f {
		m[k] = v
	}
	return m, nil
}

// cpuPer runs f and returns the CPU time of pid and of this driver during it, in ms per round
// (f runs n): unlike the wall clock, not lengthened by other work sharing the machine.
func cpuPer(pid, n int, f func() error) ([2]float64, error) {
	c0, _ := procstat.CPUSeconds(pid)
	s0, _ := procstat.CPUSeconds(os.Getpid())
	if err := f(); err != nil {
		return [2]float64{}, err
	}
	c1, err := procstat.CPUSeconds(pid)
	s1, _ := procstat.CPUSeconds(os.Getpid())
	return [2]float64{1000 * (c1 - c0) / float64(n), 1000 * (s1 - s0) / float64(n)}, err
}

// diffRequest is a tools/call openDiff as the CLI sends it, around the pre-encoded contents.
func diffRequest(id, path, tab string, contentsJSON []byte) []byte {
	p := strconv.Quote(path)
	var b bytes.Buffer
	b.Grow(len(contentsJSON) + 512)
	b.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"openDiff","arguments":{"old_file_path":` + p + `,"new_file_path":` + p + `,"new_file_contents":`)
	b.Write(contentsJSON)
	tabJSON, _ := json.Marshal(tab)
	b.WriteString(`,"tab_name":` + string(tabJSON) + `},"_meta":{"progressToken":1}}}`)
	return b.Bytes()
}

func tabName(i int) string { return fmt.Sprintf("✻ [Claude Code] bench.txt (%06x) ⧉", i) }

func openDiffRoundTrips(ctx context.Context, s *sidecar, c *claude, cfg config, p payload) (float64, error) {
	contentsJSON, mark := p.contentsJSON()
	path := p.path(cfg.workspace)
	var xs []float64
	for i := range cfg.diffIters {
		id, ch := c.Reserve()
		// Each proposal differs (as Claude's do): one letter on a changed line, so no sidecar can
		// answer a repeated text from memory and the hunks stay. The first is checked in full.
		// Capitals: the text's own letter there is lower case.
		if i > 0 {
			contentsJSON[mark] = 'A' + byte(i%26)
		}
		req := diffRequest(id, path, tabName(i), contentsJSON)
		t0 := time.Now()
		if err := c.Write(ctx, req); err != nil {
			return 0, err
		}
		actx, cancel := context.WithTimeout(ctx, 60*time.Second)
		res, err := c.Answer(actx, ch)
		cancel()
		if err != nil {
			return 0, err
		}
		xs = append(xs, ms(time.Since(t0)))
		if err := checkSaved(res.Msg, p.new, i == 0); err != nil {
			return 0, err
		}
		if _, err := c.Call(ctx, "tools/call", map[string]any{"name": "close_tab", "arguments": map[string]any{"tab_name": tabName(i)}}); err != nil {
			return 0, err
		}
	}
	return median(xs), nil
}

// checkSaved checks an openDiff answer is FILE_SAVED with the text; the full decode only when asked.
func checkSaved(res []byte, content string, full bool) error {
	if !bytes.Contains(res[:min(len(res), 512)], []byte("FILE_SAVED")) {
		return fmt.Errorf("answer is not FILE_SAVED: %.300s", res)
	}
	if !full {
		return nil
	}
	var r struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if len(r.Result.Content) != 2 || r.Result.Content[1].Text != content {
		return errors.New("FILE_SAVED without the accepted text")
	}
	return nil
}

const selPad = "func (m *Model) SelectionChanged(sel Selection) { // the selected text, about one line of code"

func selectionLine(seq int, path string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"selectionChanged","params":{"text":"sel %06d %s","filePath":%s,"selection":{"start":{"line":%d,"character":0},"end":{"line":%d,"character":12},"isEmpty":false}}}`+"\n",
		seq, selPad, strconv.Quote(path), seq%5000, seq%5000))
}

var nextSeq = 0

// fanout sends updates one at a time, one debounce interval apart (the most a debouncing editor
// sends), and times each client's receipt from the moment the editor wrote the update: the
// editor's debounce is not in the number, whatever the sidecar does is.
//
// A receipt is when the kernel received the message on the client's socket (SO_TIMESTAMPNS: on
// loopback, during the sidecar's write), not when the driver's reader goroutine got to it: the
// 16 clients are goroutines of this one process, and their own scheduling put 1 to ~4 ms into
// the top 1 % of samples after the sidecar had written (per-sample timelines, docs/performance.md
// section 10). The reader's time is reported too (read). The driver also collects the receipts
// only after the interval, so its main goroutine is not woken 16 times per update while the
// sidecar writes. Both sidecars are measured by this same code.
func fanout(ctx context.Context, s *sidecar, clients []*claude, cfg config) (rx, read [2]float64, err error) {
	path := filepath.Join(cfg.workspace, "bench.txt")
	for _, c := range clients {
		c.drain()
	}
	var lat, latRead []float64
	// The first update too comes one interval after the selection before it (listening's last):
	// sooner, a sidecar that paces selections per client (the bridge: one per 25 ms) holds it.
	time.Sleep(cfg.debounce)
	for range cfg.fanUpdates {
		nextSeq++
		seq := nextSeq
		line := selectionLine(seq, path)
		t0 := time.Now()
		if err := s.send(line); err != nil {
			return rx, read, err
		}
		time.Sleep(time.Until(t0.Add(cfg.debounce)))
		for _, c := range clients {
			v, err := awaitSeq(c, seq, 5*time.Second)
			if err != nil {
				return rx, read, err
			}
			lat = append(lat, ms(v.receipt(t0).Sub(t0)))
			latRead = append(latRead, ms(v.at.Sub(t0)))
		}
	}
	return [2]float64{percentile(lat, 50), percentile(lat, 99)}, [2]float64{percentile(latRead, 50), percentile(latRead, 99)}, nil
}

// receipt is when v arrived for a sample that started at t0: the kernel's receive time when it
// is known and belongs to this message (not before t0, not after the reader had it), else the
// reader's time. A stamp of older data never makes a sample shorter.
func (v seen) receipt(t0 time.Time) time.Time {
	if v.rx.IsZero() || v.rx.Before(t0) || v.rx.After(v.at) {
		return v.at
	}
	return v.rx
}

// listening waits until every client gets selections: a sidecar may hold notifications back for
// a while after the handshake (the bridge does, because the CLI drops earlier ones). It sends
// fresh selections until each client has seen one, for at most 10 s.
func listening(s *sidecar, clients []*claude, cfg config) error {
	path := filepath.Join(cfg.workspace, "bench.txt")
	deadline := time.Now().Add(10 * time.Second)
	for {
		nextSeq++
		seq := nextSeq
		if err := s.send(selectionLine(seq, path)); err != nil {
			return err
		}
		all := true
		for _, c := range clients {
			if _, err := awaitSeq(c, seq, 100*time.Millisecond); err != nil {
				all = false
			}
		}
		if all {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("clients did not get selections within 10s of their handshake")
		}
	}
}

// awaitSeq waits (bounded) until c has seen selection seq or a later one.
func awaitSeq(c *claude, seq int, limit time.Duration) (seen, error) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	last := -1
	for {
		select {
		case v := <-c.sel:
			if v.seq >= seq {
				return v, nil
			}
			last = v.seq
		case <-c.Done():
			return seen{}, errors.New("client connection closed")
		case <-timer.C:
			return seen{}, fmt.Errorf("selection %d not seen within %v (last seen %d)", seq, limit, last)
		}
	}
}

// flood sends cfg.floodRate updates per second for cfg.floodFor and measures the sidecar's CPU
// and how long after the last update every client holds it.
func flood(s *sidecar, clients []*claude, cfg config) (metrics, error) {
	path := filepath.Join(cfg.workspace, "bench.txt")
	for _, c := range clients {
		c.drain()
	}
	n := int(cfg.floodFor.Seconds() * float64(cfg.floodRate))
	period := time.Second / time.Duration(cfg.floodRate)
	lines := make([][]byte, n)
	first := nextSeq + 1
	for i := range lines {
		lines[i] = selectionLine(first+i, path)
	}
	nextSeq += n
	last := nextSeq
	sent := make([]time.Time, n)

	cpu0, err := procstat.CPUSeconds(s.Pid)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	for i, line := range lines {
		if d := time.Until(t0.Add(time.Duration(i) * period)); d > 0 {
			time.Sleep(d)
		}
		sent[i] = time.Now()
		if err := s.send(line); err != nil {
			return nil, err
		}
	}
	tLast := sent[n-1]
	sendWall := time.Since(t0)

	m := metrics{}
	var settle, stale []float64
	var got []float64
	final := 0
	for _, c := range clients {
		count := 0
		var at time.Time
		timer := time.NewTimer(2 * time.Second)
	loop:
		for {
			select {
			case v := <-c.sel:
				count++
				if v.seq >= first {
					stale = append(stale, ms(v.at.Sub(sent[v.seq-first])))
				}
				if v.seq == last {
					at = v.at
					break loop
				}
			case <-timer.C:
				break loop
			}
		}
		timer.Stop()
		got = append(got, float64(count))
		if !at.IsZero() {
			final++
			settle = append(settle, ms(at.Sub(tLast)))
		} else {
			settle = append(settle, 2000) // never saw the latest: report the bound
		}
	}
	wall := time.Since(t0)
	cpu1, err := procstat.CPUSeconds(s.Pid)
	if err != nil {
		return nil, err
	}
	m["flood_cpu_pct"] = 100 * (cpu1 - cpu0) / wall.Seconds()
	m["flood_rate"] = float64(n) / sendWall.Seconds()
	m["flood_settle_ms"] = slices.Max(settle)
	m["flood_latest_clients"] = float64(final)
	m["flood_msgs_per_client"] = median(got)
	m["flood_p99_ms"] = percentile(stale, 99)
	return m, nil
}

// measureClients connects n idle clients to a fresh sidecar and reports RSS growth per client.
func measureClients(t target, cfg config) (metrics, error) {
	s, err := startSidecar(t.argv, cfg.workspace, cfg.logs)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	ctx, cancel := bounded(2 * time.Minute)
	defer cancel()
	time.Sleep(500 * time.Millisecond)
	rss0, err := procstat.RSSKiB(s.Pid)
	if err != nil {
		return nil, err
	}
	var clients []*claude
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	var refused error
	for len(clients) < cfg.manyClients {
		c, err := dialClaude(ctx, s.Port, s.Token)
		if err != nil {
			refused = err
			break
		}
		clients = append(clients, c)
		if err := c.Handshake(ctx); err != nil {
			return nil, err
		}
	}
	if refused != nil {
		fmt.Fprintf(cfg.logs, "%s: client %d refused: %v\n", t.name, len(clients)+1, refused)
	}
	if len(clients) == 0 {
		return nil, refused
	}
	wctx, wcancel := bounded(10 * time.Second)
	defer wcancel()
	if err := s.waitClients(wctx, len(clients)); err != nil {
		return nil, err
	}
	time.Sleep(time.Second)
	rss1, err := procstat.RSSKiB(s.Pid)
	if err != nil {
		return nil, err
	}
	return metrics{
		"clients_accepted":     float64(len(clients)),
		"per_client_kib":       float64(rss1-rss0) / float64(len(clients)),
		"many_clients_rss_mib": float64(rss1) / 1024,
	}, nil
}

// measureEcho times the same openDiff request bytes through the plain WebSocket echo (with
// args "-relay": through the echo and a cat child on stdio pipes).
func measureEcho(bin string, cfg config, args ...string) (metrics, error) {
	cmd := exec.Command(bin, args...)
	in, out, err := child.Pipes(cmd)
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cfg.logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(line[:len(line)-1])
	if err != nil {
		return nil, err
	}
	ctx, cancel := bounded(2 * time.Minute)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://127.0.0.1:"+strconv.Itoa(port)+"/", &websocket.DialOptions{
		Subprotocols: []string{"mcp"}, CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		return nil, err
	}
	defer ws.Close(websocket.StatusNormalClosure, "")
	ws.SetReadLimit(256 << 20)
	contentsJSON, mark := cfg.text.contentsJSON()
	path := cfg.text.path(cfg.workspace)
	var xs []float64
	cpu0, _ := procstat.CPUSeconds(cmd.Process.Pid)
	self0, _ := procstat.CPUSeconds(os.Getpid())
	for i := range cfg.diffIters {
		if i > 0 {
			contentsJSON[mark] = 'A' + byte(i%26)
		}
		req := diffRequest(strconv.Itoa(i+1), path, tabName(i), contentsJSON)
		t0 := time.Now()
		if err := ws.Write(ctx, websocket.MessageText, req); err != nil {
			return nil, err
		}
		_, back, err := ws.Read(ctx)
		if err != nil {
			return nil, err
		}
		xs = append(xs, ms(time.Since(t0)))
		if len(back) != len(req) {
			return nil, fmt.Errorf("echo returned %d bytes, sent %d", len(back), len(req))
		}
	}
	cpu1, _ := procstat.CPUSeconds(cmd.Process.Pid)
	self1, _ := procstat.CPUSeconds(os.Getpid())
	m := metrics{"opendiff_ms": median(xs), "opendiff_bytes": float64(len(contentsJSON)),
		"opendiff_cpu_ms": 1000 * (cpu1 - cpu0) / float64(cfg.diffIters), "opendiff_client_cpu_ms": 1000 * (self1 - self0) / float64(cfg.diffIters)}
	if cfg.nodeClient != "" {
		var nd nodeResult
		cpu, err := cpuPer(cmd.Process.Pid, cfg.diffIters, func() (err error) {
			nd, err = nodeRoundTrips(cfg, "echo", port, "")
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("the Node client: %w", err)
		}
		nd.into(m, "opendiff_nodecli", cpu[0])
	}
	return m, nil
}

// writeWorkspace puts the old files of the payloads in dir.
func writeWorkspace(dir string, ps ...payload) error {
	for _, p := range ps {
		if err := p.write(dir); err != nil {
			return err
		}
	}
	return nil
}
