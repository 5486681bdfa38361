//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/attach"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// stayingBridge starts `serve --stdio` for ws, connects a Claude, and ends the editor's stdin:
// the bridge stays for the Claude and listens on its attach socket, whose path it returns.
func stayingBridge(t *testing.T, h home, ws string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--stdio")
	cmd.Dir, cmd.Env = ws, h.env()
	var errOut testbin.Buffer
	cmd.Stderr = &errOut
	in, line, err := stdioInit(t, cmd, ws)
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("bridge's stderr:\n%s", errOut.String())
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Result struct{ Port int } }
	json.Unmarshal([]byte(line), &res)
	lock := filepath.Join(h.cfg, "ide", strconv.Itoa(res.Result.Port)+".lock")
	data, err := os.ReadFile(lock)
	if err != nil {
		t.Fatalf("initialize %s: %v", line, err)
	}
	var l struct{ AuthToken string }
	json.Unmarshal(data, &l)
	c, _, err := probe.Dial(testbin.Ctx(t), res.Result.Port, l.AuthToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Handshake(testbin.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	in.Close()
	// After it listens, the lock names the bridge's pid (it named none: no editor pid was given).
	sock := attach.SocketPath(filepath.Join(h.cfg, "ide"), ws)
	deadline := time.Now().Add(testbin.Bound)
	for {
		data, _ := os.ReadFile(lock)
		var l struct{ PID int }
		if json.Unmarshal(data, &l); l.PID == cmd.Process.Pid {
			if fi, err := os.Lstat(sock); err == nil && fi.Mode().Type() == os.ModeSocket {
				return cmd, sock
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the staying bridge never listened on %s", sock)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A killed bridge leaves its attach socket (issue 39 item 10): `locks --clean` removes it, and
// leaves a live bridge's socket and a file of another kind alone.
func TestLocksCleanDeadSocket(t *testing.T) {
	h := newHome(t)
	killed, dead := stayingBridge(t, h, h.ws)
	killed.Process.Signal(syscall.SIGKILL)
	killed.Wait()
	if _, err := os.Lstat(dead); err != nil {
		t.Fatalf("a killed bridge's socket: %v (expected it left behind)", err)
	}
	other, _ := filepath.EvalSymlinks(t.TempDir())
	_, live := stayingBridge(t, h, other)
	notSock := filepath.Join(h.cfg, "ide", "ws-0123456789abcdef.sock")
	os.WriteFile(notSock, []byte("x"), 0o600)

	out, stderr, code := h.command(t, h.dir, "locks", "--clean")
	if code != 0 || !strings.Contains(out, "removed "+dead+"\n") {
		t.Errorf("locks --clean: status %d, stdout %q, stderr %q", code, out, stderr)
	}
	if _, err := os.Lstat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead socket is still there: %v", err)
	}
	for _, p := range []string{live, notSock} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("locks --clean removed %s: %v", p, err)
		}
	}
	if c, err := net.Dial("unix", live); err != nil {
		t.Errorf("the live bridge's socket no longer answers: %v", err)
	} else {
		c.Close()
	}
}

// The next editor's bridge for the workspace removes the dead socket at start, as it looks for a
// bridge to attach to.
func TestNextBridgeDeadSocket(t *testing.T) {
	h := newHome(t)
	killed, dead := stayingBridge(t, h, h.ws)
	killed.Process.Signal(syscall.SIGKILL)
	killed.Wait()
	cmd := exec.CommandContext(testbin.Ctx(t), bin, "serve", "--stdio")
	cmd.Dir, cmd.Env = h.ws, h.env()
	var errOut testbin.Buffer
	cmd.Stderr = &errOut
	defer func() {
		if t.Failed() {
			t.Logf("the next bridge's stderr:\n%s", errOut.String())
		}
	}()
	in, line, err := stdioInit(t, cmd, h.ws)
	defer cmd.Wait()
	defer in.Close()
	if err != nil || !strings.Contains(line, `"port"`) {
		t.Fatalf("initialize: %q %v", line, err)
	}
	if _, err := os.Lstat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead bridge's socket is still there: %v", err)
	}
}
