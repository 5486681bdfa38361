package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"time"
)

// nodeRoundTrips runs the openDiff rounds from the Node client (bench/node/client.js: Node with
// `ws`, the CLI's runtime) against the server on port: mode "claude" for a sidecar or `serve`
// (the CLI's handshake, the token), "echo" for bench/echo. The editor side is still this driver
// (the sidecar's stdin/stdout). It returns the medians of the round trip and of the client's
// JSON.parse of the answer (outside the round trip).
func nodeRoundTrips(cfg config, mode string, port int, token string) (nodeResult, error) {
	opts, _ := json.Marshal(map[string]any{
		"mode": mode, "port": port, "token": token, "text": cfg.textFile, "mark": cfg.text.mark,
		"iters": cfg.diffIters, "path": cfg.text.path(cfg.workspace),
	})
	cmd := exec.Command(cfg.node, cfg.nodeClient, string(opts))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		return nodeResult{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return nodeResult{}, fmt.Errorf("%v: %s", err, errb.Bytes())
		}
	case <-time.After(5 * time.Minute):
		cmd.Process.Kill()
		<-done
		return nodeResult{}, fmt.Errorf("no answer within 5 min: %s", errb.Bytes())
	}
	var r struct {
		OpenDiff []float64 `json:"opendiff_ms"`
		Parse    []float64 `json:"parse_ms"`
		CPU      float64   `json:"cpu_ms"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || len(r.OpenDiff) != cfg.diffIters {
		return nodeResult{}, fmt.Errorf("bad output %q (%v)", out.Bytes(), err)
	}
	return nodeResult{median(r.OpenDiff), median(r.Parse), r.CPU / float64(cfg.diffIters)}, nil
}

// nodeResult is what the Node client measured: medians of the round trip and of its
// JSON.parse, and its own CPU time per round (process.cpuUsage over the rounds).
type nodeResult struct{ ms, parse, cpu float64 }

// into puts r and the server's CPU per round into m under prefix.
func (r nodeResult) into(m metrics, prefix string, serverCPU float64) {
	m[prefix+"_ms"], m[prefix+"_parse_ms"], m[prefix+"_client_cpu_ms"], m[prefix+"_cpu_ms"] = r.ms, r.parse, r.cpu, serverCPU
}
