package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// measureServeAuto is issue 18's terminal case: `claude-ide-bridge serve --auto accept` (the
// built-in terminal reviewer, no editor) answering openDiff, the same proposals and the same
// client as the sidecars' openDiff. Its stdout is a pipe the driver drains as a terminal would;
// how much it printed per proposal is reported too.
func measureServeAuto(bin string, cfg config) (metrics, error) {
	cfgDir, err := os.MkdirTemp("", "bench-serve-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(cfgDir)
	cmd := exec.Command(bin, "serve", "--auto", "accept", "--workspace", cfg.workspace)
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+cfgDir)
	cmd.Stderr = cfg.logs
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}()
	lockc := make(chan string, 1)
	var printed atomic.Int64
	go func() {
		defer close(exited)
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadString('\n')
			printed.Add(int64(len(line)))
			if lock, ok := strings.CutPrefix(line, "lock file: "); ok {
				lockc <- strings.TrimSpace(lock)
			}
			if err != nil {
				cmd.Wait()
				return
			}
		}
	}()
	var lock string
	select {
	case lock = <-lockc:
	case <-exited:
		return nil, errors.New("serve exited before printing its lock file")
	case <-time.After(10 * time.Second):
		return nil, errors.New("serve printed no lock file within 10s")
	}
	port, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(lock), ".lock"))
	if err != nil {
		return nil, fmt.Errorf("lock file name %q: %w", lock, err)
	}
	data, err := os.ReadFile(lock)
	if err != nil {
		return nil, err
	}
	var l struct {
		AuthToken string `json:"authToken"`
	}
	if err := json.Unmarshal(data, &l); err != nil || l.AuthToken == "" {
		return nil, fmt.Errorf("lock file %s: no authToken", lock)
	}
	ctx, cancel := bounded(5 * time.Minute)
	defer cancel()
	c, err := dialClaude(ctx, port, l.AuthToken)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.Handshake(ctx); err != nil {
		return nil, err
	}
	before := printed.Load()
	var d float64
	cpu, err := cpuPer(cmd.Process.Pid, cfg.diffIters, func() (err error) {
		d, err = openDiffRoundTrips(ctx, nil, c, cfg, cfg.text)
		return err
	})
	if err != nil {
		return nil, err
	}
	// What it printed for the proposals (the last summary may still be on its way: wait a bit).
	time.Sleep(200 * time.Millisecond)
	kib := float64(printed.Load()-before) / 1024 / float64(cfg.diffIters)
	m := metrics{"serve_auto_ms": d, "serve_auto_printed_kib": kib, "serve_auto_cpu_ms": cpu[0]}
	if cfg.nodeClient != "" {
		var nd nodeResult
		cpu, err := cpuPer(cmd.Process.Pid, cfg.diffIters, func() (err error) {
			nd, err = nodeRoundTrips(cfg, "claude", port, l.AuthToken)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("the Node client: %w", err)
		}
		m["serve_auto_nodecli_ms"], m["serve_auto_nodecli_cpu_ms"] = nd.ms, cpu[0]
	}
	return m, nil
}
