package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

func TestServeAutoAccept(t *testing.T) {
	h := newHome(t)
	s := h.serve(t, nil, "--auto", "accept")
	// The banner tells the user what to export in the terminal running claude.
	for _, want := range []string{"export ENABLE_IDE_INTEGRATION=true\n", "export NO_PROXY=", "export no_proxy=", "lock file: " + s.lock} {
		if !strings.Contains(s.out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, s.out.String())
		}
	}
	path := filepath.Join(h.ws, "a.txt")
	os.WriteFile(path, []byte("old\n"), 0o644)
	c := s.claude(t)
	// Facts file: "FILE_SAVED + final contents: ... The server must NOT write it"
	got := await(t, openDiff(t, c, path, "new\n", "tab-a"))
	if !slices.Equal(got, []string{"FILE_SAVED", "new\n"}) {
		t.Errorf("openDiff = %q", got)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("serve wrote the file: %q", b)
	}
	s.waitFor(t, reText("auto: accepted"))

	// SIGTERM: the lock goes, the exit is clean.
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(testbin.Bound):
		t.Fatal("serve did not stop on SIGTERM")
	}
	if s.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("exit status %d", s.cmd.ProcessState.ExitCode())
	}
	if _, err := os.Stat(s.lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left behind: %v", err)
	}
}

func TestServeAutoReject(t *testing.T) {
	h := newHome(t)
	s := h.serve(t, nil, "--auto", "reject")
	path := filepath.Join(h.ws, "a.txt")
	os.WriteFile(path, []byte("old\n"), 0o644)
	c := s.claude(t)
	if got := await(t, openDiff(t, c, path, "new\n", "tab-r")); !slices.Equal(got, []string{"DIFF_REJECTED", "tab-r"}) {
		t.Errorf("openDiff = %q", got)
	}
	_, stderr, code := h.command(t, h.ws, "serve", "--auto", "maybe")
	if code != 2 || !strings.Contains(stderr, "--auto must be accept or reject") {
		t.Errorf("--auto maybe: status %d, stderr %q", code, stderr)
	}
}

func TestServeInteractive(t *testing.T) {
	h := newHome(t)
	// $EDITOR appends a line to the proposal, as a user would.
	script := filepath.Join(h.dir, "editor.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho 'added in the editor' >> \"$1\"\n"), 0o755)
	s := h.serve(t, []string{"EDITOR=" + script})
	path := filepath.Join(h.ws, "a.txt")
	os.WriteFile(path, []byte("old\n"), 0o644)
	c := s.claude(t)
	const prompt = "Accept this change?"
	answer := func(line string) { io.WriteString(s.stdin, line+"\n") }

	res := openDiff(t, c, path, "yes\n", "tab-y")
	s.waitCount(t, prompt, 1)
	if !strings.Contains(s.out.String(), "+yes") || !strings.Contains(s.out.String(), "-old") {
		t.Errorf("the diff is not shown:\n%s", s.out.String())
	}
	answer("maybe") // not an answer: asked again
	s.waitCount(t, prompt, 2)
	answer("y")
	if got := await(t, res); !slices.Equal(got, []string{"FILE_SAVED", "yes\n"}) {
		t.Errorf("y: openDiff = %q", got)
	}

	res = openDiff(t, c, path, "no\n", "tab-n")
	s.waitCount(t, prompt, 3)
	answer("n")
	if got := await(t, res); !slices.Equal(got, []string{"DIFF_REJECTED", "tab-n"}) {
		t.Errorf("n: openDiff = %q", got)
	}

	res = openDiff(t, c, path, "edit me\n", "tab-e")
	s.waitCount(t, prompt, 4)
	answer("e")
	if got := await(t, res); !slices.Equal(got, []string{"FILE_SAVED", "edit me\nadded in the editor\n"}) {
		t.Errorf("e: openDiff = %q, want the proposal with the editor's line", got)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("serve wrote the file: %q", b)
	}

	// Claude closing a diff under review ends its prompt; the next diff is asked about.
	res = openDiff(t, c, path, "closed\n", "tab-c")
	s.waitCount(t, prompt, 5)
	if r, err := c.Tool(testbin.Ctx(t), "close_tab", map[string]any{"tab_name": "tab-c"}); err != nil || r.Texts()[0] != "TAB_CLOSED" {
		t.Fatalf("close_tab: %v %v", r, err)
	}
	if got := await(t, res); got[0] != "DIFF_REJECTED" {
		t.Errorf("closed by Claude: openDiff = %q", got)
	}
	s.waitFor(t, reText("(closed by Claude, not accepted: rejected in Claude's terminal, or Claude moved on; "+path+" is left as it is)"))
}

func TestEnvAndLocks(t *testing.T) {
	h := newHome(t)
	s := h.serve(t, nil, "--auto", "reject")
	port := strconv.Itoa(s.port)

	sub := filepath.Join(h.ws, "sub")
	os.Mkdir(sub, 0o755)
	for _, dir := range []string{h.ws, sub} {
		out, stderr, code := h.command(t, dir, "env")
		if code != 0 || !strings.Contains(out, "export CLAUDE_CODE_SSE_PORT="+port+"\n") || !strings.Contains(out, "export ENABLE_IDE_INTEGRATION=true\n") {
			t.Errorf("env in %s: status %d, stdout %q, stderr %q", dir, code, out, stderr)
		}
	}
	if out, _, code := h.command(t, h.dir, "env", "--workspace", h.ws); code != 0 || !strings.Contains(out, port) {
		t.Errorf("env --workspace: status %d, %q", code, out)
	}
	// serve's claude line, as comments (issue 39: a claude without the bridge's flags may skip
	// diffs); eval runs only the exports.
	out, _, _ := h.command(t, h.ws, "env")
	if want := "/claude --permission-mode default --settings " + filepath.Join(h.cfg, "ide", port+".settings.json") + " --mcp-config "; !strings.Contains(out, want) {
		t.Errorf("env prints no claude line %q:\n%s", want, out)
	}
	if sh, err := exec.Command("sh", "-c", out+"\necho \"$CLAUDE_CODE_SSE_PORT\"").Output(); err != nil || string(sh) != port+"\n" {
		t.Errorf("env's output in sh: %q, %v", sh, err)
	}
	other := t.TempDir()
	if out, stderr, code := h.command(t, other, "env"); code != 1 || out != "" || !strings.Contains(stderr, "no running IDE server serves") {
		t.Errorf("env elsewhere: status %d, stdout %q, stderr %q", code, out, stderr)
	}

	// A stale lock: ours, its pid dead, nothing on its port.
	dead := deadPID(t)
	stale := filepath.Join(h.cfg, "ide", "65001.lock")
	os.WriteFile(stale, []byte(`{"pid":`+strconv.Itoa(dead)+`,"workspaceFolders":["/x"],"ideName":"Old","transport":"ws","authToken":"t","bridge":"claude-ide-bridge"}`), 0o600)

	out, _, code := h.command(t, h.dir, "locks")
	if code != 0 || !strings.Contains(out, port) || !strings.Contains(out, "Terminal") || !strings.Contains(out, "65001") {
		t.Errorf("locks: status %d:\n%s", code, out)
	}
	out, _, code = h.command(t, h.dir, "locks", "--clean")
	if code != 0 || !strings.Contains(out, "removed "+stale) || strings.Contains(out, s.lock) {
		t.Errorf("locks --clean: status %d:\n%s", code, out)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale lock kept")
	}
	if _, err := os.Stat(s.lock); err != nil {
		t.Errorf("locks --clean removed the live lock: %v", err)
	}
	if out, _, _ := h.command(t, h.dir, "locks", "--clean"); !strings.Contains(out, "no stale lock files") {
		t.Errorf("second clean: %q", out)
	}
}

func TestUsage(t *testing.T) {
	h := newHome(t)
	if out, _, code := h.command(t, h.dir, "version"); code != 0 || !strings.HasPrefix(out, "claude-ide-bridge ") {
		t.Errorf("version: %d %q", code, out)
	}
	if _, stderr, code := h.command(t, h.dir, "frob"); code != 2 || !strings.Contains(stderr, `unknown command "frob"`) {
		t.Errorf("unknown command: %d %q", code, stderr)
	}
	if _, _, code := h.command(t, h.dir, "serve", "--nope"); code != 2 {
		t.Errorf("bad flag: status %d, want 2", code)
	}
}
