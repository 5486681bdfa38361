package stdio_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// "When stdin reaches EOF, or the editor pid dies, with no Claude connected (or with --outlive 0,
// or a --path-map), the bridge closes its WebSocket clients with 1001, settles pending diffs
// (never as an accept), removes its lock file and exits within a second. SIGINT, SIGTERM and
// shutdown do the same whatever is connected." TestStdinEOF and TestEditorPIDDies run with
// --outlive 0 and a Claude connected; outlive_test.go covers the default.
//
// checkShutdown asserts all of that after stop ended the editor's side; the exit time is logged,
// not asserted.
func checkShutdown(t *testing.T, s *sidecar, c *probe.Client, diff <-chan *probe.ToolResult, lockPath string, stop func()) {
	t.Helper()
	stop()
	took := s.waitExit(t)
	t.Logf("exited %v after the editor's side ended", took.Round(time.Millisecond))
	if code := s.exitCode(); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	if _, err := os.Stat(lockPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left behind: %v", err)
	}
	// The MCP config file (its token) goes with the lock.
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(lockPath), "*.mcp.json")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	select {
	case <-c.Done():
	case <-time.After(testbin.Bound):
		t.Fatal("the Claude client was not disconnected")
	}
	if got := c.CloseStatus(); got != websocket.StatusGoingAway {
		t.Errorf("client closed with %v, want 1001", got)
	}
	if diff != nil {
		r := await(t, diff)
		if len(r.Texts()) == 0 || r.Texts()[0] == "FILE_SAVED" || r.Texts()[0] == "TAB_CLOSED" {
			t.Errorf("pending openDiff settled as %+v; it must never be an accept", r)
		}
		if !slices.Equal(r.Texts(), []string{"DIFF_REJECTED", "tab-x"}) {
			t.Errorf("pending openDiff = %+v, want DIFF_REJECTED", r)
		}
	}
}

// pendingDiff connects Claude and leaves an openDiff waiting for the user.
func pendingDiff(t *testing.T, s *sidecar, r initResult) (*probe.Client, <-chan *probe.ToolResult) {
	c := claude(t, r)
	path := s.writeFile(t, "x.txt", "x\n")
	diff := openDiff(t, c, path, "y\n", "tab-x")
	nextShowDiff(t, s)
	s.settle(t) // the diff is on screen: only the user or the shutdown can end it now
	return c, diff
}

func TestStdinEOF(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing, "--outlive", "0")
		r := s.initialize(t, nil)
		c, diff := pendingDiff(t, s, r)
		checkShutdown(t, s, c, diff, r.LockPath, func() { s.stdin.Close() })
	})
}

func TestEditorPIDDies(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line", "--outlive", "0")
	editor := exec.Command("sleep", "60")
	if err := editor.Start(); err != nil {
		t.Fatal(err)
	}
	p := s.initParams()
	p["pid"] = editor.Process.Pid
	r := s.initialize(t, p)
	if l := readLock(t, r.LockPath); l.PID != editor.Process.Pid {
		t.Fatalf("lock pid = %d, want %d", l.PID, editor.Process.Pid)
	}
	c, diff := pendingDiff(t, s, r)
	// stdin stays open: only the pid tells the bridge the editor is gone.
	checkShutdown(t, s, c, diff, r.LockPath, func() {
		editor.Process.Kill()
		editor.Wait() // reaped: a zombie still answers kill(pid, 0)
	})
}

func TestSignals(t *testing.T) {
	t.Parallel()
	// SIGHUP: the terminal window running the bridge was closed; SIGQUIT: Ctrl-\ (issue 25
	// item 7: both left the lock and .mcp.json).
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			s := startSidecar(t, "header")
			r := s.initialize(t, nil)
			c, diff := pendingDiff(t, s, r)
			checkShutdown(t, s, c, diff, r.LockPath, func() { s.cmd.Process.Signal(sig) })
		})
	}
}

func TestSignalBeforeInitialize(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line")
	s.call(t, "status", nil, nil) // answered: the bridge runs and handles signals
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.waitExit(t)
	if code := s.exitCode(); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	if entries, _ := os.ReadDir(s.cfgDir + "/ide"); len(entries) != 0 {
		t.Errorf("lock files: %v", entries)
	}
}

// "Any other first byte: the bridge writes a line to stderr and exits with status 1."
func TestGarbageFirstByte(t *testing.T) {
	t.Parallel()
	for _, garbage := range []string{"hello\n", "\x00\x01", "Xontent-Length: 2\r\n\r\n{}"} {
		s := startSidecar(t, "line")
		io.WriteString(s.stdin, garbage)
		s.waitExit(t)
		if code := s.exitCode(); code != 1 {
			t.Errorf("%q: exit status %d, want 1", garbage, code)
		}
		if e := s.stderr.String(); !strings.Contains(e, "unknown framing") || strings.Count(strings.TrimSpace(e), "\n") != 0 {
			t.Errorf("%q: stderr = %q, want one line naming the framing problem", garbage, e)
		}
		if out := s.out.String(); out != "" {
			t.Errorf("%q: stdout = %q, want nothing", garbage, out)
		}
	}
}

// "Logs go to stderr, never stdout." Every test checks stdout on cleanup; this one checks the
// logs are on stderr, and that --log-file moves them there.
func TestLogs(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line")
	r := s.initialize(t, nil)
	claude(t, r)
	s.next(t, "clientConnected")
	// The log comes through the child's stderr pipe and exec's copying goroutine, which can lag
	// behind the clientConnected notification on stdout: wait for it (bounded).
	for deadline := time.Now().Add(testbin.Bound); ; time.Sleep(10 * time.Millisecond) {
		e := s.stderr.String()
		if strings.Contains(e, "msg=listening") && strings.Contains(e, "client connected") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stderr = %q, want the bridge's log", e)
		}
	}

	logFile := t.TempDir() + "/bridge.log"
	s2 := startSidecar(t, "header", "--log-file", logFile)
	s2.initialize(t, nil)
	s2.stdin.Close()
	s2.waitExit(t)
	b, _ := os.ReadFile(logFile)
	if !strings.Contains(string(b), "msg=listening") || s2.stderr.String() != "" {
		t.Errorf("with --log-file: file %q, stderr %q", b, s2.stderr.String())
	}
}
