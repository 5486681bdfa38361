//go:build linux

package soak

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSoakAutoAccept is the review's own run (issue 35 item 7): turns against `serve --auto
// accept` (the terminal reviewer, no editor) with hooks, getDiagnostics before and after each
// write, an openDiff every 5th turn, and the Claude connection renewed every 10th right after
// the accept, as a restarted CLI or a dropped connection does. SOAK_TURNS as TestSoak.
func TestSoakAutoAccept(t *testing.T) {
	turns := soakTurns()
	s := newSoak(t)
	s.startServe()
	for i := 1; i <= turns; i++ {
		s.hook("UserPromptSubmit", "")
		s.tool("closeAllDiffTabs", nil)
		f := s.files[i%len(s.files)]
		s.hook("PreToolUse", "Edit")
		s.tool("getDiagnostics", map[string]any{"uri": "file://" + f})
		s.put(f, body(i%len(s.files), i, 4<<10+i%7*512))
		s.tool("getDiagnostics", nil)
		s.hook("PostToolUse", "Edit")
		if i%5 == 0 {
			path := filepath.Join(s.ws, "src", "big.txt")
			text := body(50, i, 96<<10+i%13*1024)
			tab := fmt.Sprintf("✻ [Claude Code] big.txt (%06x) ⧉", i)
			got := recv(s, s.openDiff(path, text, tab), "openDiff answer")
			if len(got) != 2 || got[0] != "FILE_SAVED" || got[1] != text {
				t.Fatalf("turn %d: openDiff answered %.80q, want FILE_SAVED with the text", i, got)
			}
			if err := s.writeAsCLI(path, text); err != nil {
				t.Fatal(err)
			}
			if i%10 == 0 {
				s.renew(i%20 == 0)
			} else {
				s.tool("close_tab", map[string]any{"tab_name": tab})
				s.tool("close_tab", map[string]any{"tab_name": tab})
			}
		}
		s.hook("Stop", "")
		if i == 20 || i == 50 || i%100 == 0 || i == turns {
			s.measure(i)
		}
	}
	s.hook("SessionEnd", "")
	s.cl.c.Close()
	s.bridge.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.bridge.done:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not end within 10s of SIGTERM")
	}
	s.bridge.cmd.Wait()
	left, _ := os.ReadDir(s.lock)
	for _, e := range left {
		s.notes = append(s.notes, "left in the lock directory: "+e.Name())
	}
	s.report(turns)
	s.judge(turns)
}

// startServe runs `serve --auto accept` and connects the first Claude.
func (s *soak) startServe() {
	cmd := exec.Command(s.bin, "serve", "--auto", "accept", "--workspace", s.ws)
	cmd.Env, cmd.Stderr = s.env, s.bridgeLog
	out, err := cmd.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.bridge = &editor{cmd: cmd, done: make(chan struct{})}
	s.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-s.bridge.done
			cmd.Wait()
		}
	})
	lockc := make(chan string, 1)
	go func() {
		defer close(s.bridge.done)
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadString('\n') // the terminal: read and dropped
			if lock, ok := strings.CutPrefix(line, "lock file: "); ok {
				lockc <- strings.TrimSpace(lock)
			}
			if err != nil {
				return
			}
		}
	}()
	lock := recv(s, lockc, "serve's lock file line")
	data, err := os.ReadFile(lock)
	if err != nil {
		s.t.Fatal(err)
	}
	var l struct {
		AuthToken string `json:"authToken"`
	}
	json.Unmarshal(data, &l)
	s.pid, s.token = cmd.Process.Pid, l.AuthToken
	s.port, _ = strconv.Atoi(strings.TrimSuffix(filepath.Base(lock), ".lock"))
	s.connect()
	s.hook("SessionStart", "")
}
