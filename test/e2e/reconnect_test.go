//go:build unix

package e2e

import (
	"encoding/json"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

// The bridge drops a CLI that stops answering its keepalive pings (close
// code 1001, not 4001); once the CLI runs again it reconnects on its own
// with a full new handshake and works as before. Facts: "After a dropped
// connection it reconnects about 0.2 s later ... Each reconnect is a new
// connection with the same URL and token and a full new handshake. Close
// code 4001 ... stops its retries."
//
// The drop takes up to two keepalive periods of the bridge (the sessions run it
// with --keepalive 3s); it runs in parallel with the rest.
func TestReconnectAfterDrop(t *testing.T) {
	waitsForKeepalive(t)
	s := newSession(t, map[string]string{"hello.txt": "hello world\n"})
	pid := s.CLI.cmd.Process.Pid
	resume := s.pauseCLI()
	s.Ed.Wait(s.bound(30*time.Second), "clientDisconnected", nil)
	resume()
	s.Ed.Wait(s.bound(connectBound), "clientConnected", func(p map[string]any) bool { return p["clientId"] != float64(1) })

	fs := waitTrace(s.bound(stepBound), t, s.Ed.bridge.Trace, "a second ide_connected", func(fs []frame) bool {
		for _, f := range fs {
			if f.Client != 1 && f.Dir == "in" && f.m.Method == "ide_connected" {
				return true
			}
		}
		return false
	})
	second := 0
	for _, f := range fs {
		if f.Client != 1 && f.Dir == "in" && f.m.Method == "ide_connected" {
			var p struct{ PID int }
			_ = json.Unmarshal(f.m.Params, &p)
			if p.PID != pid {
				t.Errorf("reconnect from pid %d, want %d", p.PID, pid)
			}
			second = f.Client
		}
	}
	if second == 0 {
		t.Fatalf("no second handshake from the same CLI in the trace")
	}

	// The new connection carries diffs as before.
	f := s.path("hello.txt")
	s.ready(f)
	s.API.Push(fakeapi.Edit(f, "world", "again", "RECONNECTED")...)
	s.prompt("edit after reconnect")
	d := s.showDiff(f)
	s.accept(d, "hello again\n")
	s.waitMain(3)
	if got := readFile(t, f); got != "hello again\n" {
		t.Errorf("file %q", got)
	}
}

// pauseCLI stops the CLI's process (SIGSTOP) until resume is called, or the test ends.
func (s *session) pauseCLI() (resume func()) {
	s.t.Helper()
	pid := s.CLI.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		s.t.Fatal(err)
	}
	var once sync.Once
	resume = func() { once.Do(func() { _ = syscall.Kill(pid, syscall.SIGCONT) }) }
	s.t.Cleanup(resume)
	return resume
}

// waitsForKeepalive runs the test in parallel, as it waits for the bridge's keepalive timeout,
// which -short skips.
func waitsForKeepalive(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits for the bridge's keepalive timeout")
	}
}
