//go:build unix

package main

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// serve --codex-ide answers on $TMPDIR/codex-ipc/ipc-<uid>.sock; a second bridge asking for it
// leaves it to the first with one warning line; the socket goes when the first bridge ends.
// Without the flag no socket is made.
func TestServeCodexIDE(t *testing.T) {
	h := newHome(t)
	tmp := t.TempDir()
	env := []string{"TMPDIR=" + tmp}
	sock := filepath.Join(tmp, "codex-ipc", "ipc-"+strconv.Itoa(os.Getuid())+".sock")

	h.serve(t, env, "--auto", "reject")
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a socket without --codex-ide: %v", err)
	}

	first := h.serve(t, env, "--auto", "reject", "--codex-ide")
	before, err := os.Lstat(sock)
	if err != nil {
		t.Fatalf("no socket with --codex-ide: %v", err)
	}
	second := h.serve(t, env, "--auto", "reject", "--codex-ide")
	deadline := time.Now().Add(testbin.Bound)
	for !strings.Contains(second.errOut.String(), "not answering Codex's /ide") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := second.errOut.String(); strings.Count(got, "Codex's /ide") != 1 || !strings.Contains(got, "another program answers") {
		t.Errorf("the second bridge's log, want one line saying the socket is taken:\n%s", got)
	}
	if after, err := os.Lstat(sock); err != nil || !os.SameFile(before, after) {
		t.Fatalf("the second bridge touched the first one's socket: %v", err)
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("the first bridge no longer answers: %v", err)
	}
	c.Close()

	first.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-first.exited:
	case <-time.After(testbin.Bound):
		t.Fatal("serve did not stop on SIGTERM")
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after the bridge ended: %v", err)
	}
}
