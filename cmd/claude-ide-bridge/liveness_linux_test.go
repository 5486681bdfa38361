//go:build linux

package main

import (
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
)

const nobody = 65534

// listenAsRecording opens a loopback listener whose socket belongs to uid, as another local
// user's would (a socket's owner is its creating thread's fsuid), and counts every byte any
// connection sends it. bytes() waits for the connections to end and returns the count.
func listenAsRecording(t *testing.T, uid int) (port int, bytes func() int64) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to act as another local user (CI runs as root)")
	}
	ln := func() net.Listener {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETFSUID, uintptr(uid), 0, 0); e != 0 {
			t.Fatal(e)
		}
		defer syscall.RawSyscall(syscall.SYS_SETFSUID, 0, 0, 0)
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return ln
	}()
	var (
		n  atomic.Int64
		wg sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				m, _ := io.Copy(io.Discard, c)
				n.Add(m)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().(*net.TCPAddr).Port, func() int64 { ln.Close(); wg.Wait(); return n.Load() }
}

// Issue 25 item 3: one liveness check for every command that sends a lock's token. The bridge
// died and another user took its port; its lock (the editor's pid, alive) is still there.
// mention, select, doctor and probe --lock sent the token (and the path and lines) to that
// port, and doctor said "ok". Now each refuses with the reason, and the impostor's listener
// receives zero bytes (the liveness check's own connect sends none).
func TestNoTokenToAnotherUsersPort(t *testing.T) {
	h := newHome(t)
	port, received := listenAsRecording(t, nobody)
	dir := filepath.Join(h.cfg, "ide")
	os.MkdirAll(dir, 0o700)
	file := filepath.Join(h.ws, "a.txt")
	os.WriteFile(file, []byte("secret line\n"), 0o644)
	lock := filepath.Join(dir, strconv.Itoa(port)+".lock")
	token := strings.Repeat("ab", 16)
	data, _ := json.Marshal(discovery.Lock{PID: os.Getpid(), WorkspaceFolders: []string{h.ws}, IDEName: "Neovim",
		Transport: "ws", AuthToken: token, Bridge: discovery.BridgeMarker})
	os.WriteFile(lock, data, 0o600)
	if _, err := discovery.WriteMCPConfig(dir, port, discovery.NewMCPConfig(port, strings.Repeat("cd", 16))); err != nil {
		t.Fatal(err)
	}
	const why = "held by another user"
	for _, c := range []struct {
		args []string
		want string // in stdout or stderr
	}{
		{[]string{"mention", file + ":1"}, why},
		{[]string{"select", file + ":1"}, why},
		{[]string{"doctor", "--cwd", h.ws}, why},
		{[]string{"probe", "--lock", lock}, why},
		{[]string{"probe", "--port", strconv.Itoa(port)}, why},
		{[]string{"probe"}, "no live IDE server"},
		{[]string{"env", "--workspace", h.ws}, "no running IDE server"},
		{[]string{"mcp-config", "--workspace", h.ws}, "no running IDE server"},
		{[]string{"mcp-config", "--port", strconv.Itoa(port)}, why},
	} {
		out, errOut, code := h.command(t, h.ws, c.args...)
		if code == 0 || !strings.Contains(out+errOut, c.want) {
			t.Errorf("%s: exit %d, want a refusal saying %q\nstdout %s\nstderr %s", c.args, code, c.want, out, errOut)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "ok") && strings.Contains(line, strconv.Itoa(port)) {
				t.Errorf("%s says %q", c.args, line)
			}
		}
		if strings.Contains(out, token) {
			t.Errorf("%s printed the token", c.args)
		}
	}
	if n := received(); n != 0 {
		t.Fatalf("the other user's listener received %d bytes", n)
	}
}
