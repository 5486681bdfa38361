package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// home is a private HOME and CLAUDE_CONFIG_DIR, so lock files land in a temp dir.
type home struct {
	dir, cfg, ws string
}

func newHome(t *testing.T) home {
	dir := t.TempDir()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	// A claude on $PATH (h.env) for serve's banner: the program is looked up (claudecmd).
	os.Mkdir(filepath.Join(dir, "bin"), 0o755)
	os.WriteFile(filepath.Join(dir, "bin", "claude"), []byte("#!/bin/sh\n"), 0o755)
	return home{dir: dir, cfg: filepath.Join(dir, "config"), ws: ws}
}

func (h home) env(extra ...string) []string {
	// XDG_CONFIG_HOME: the trust store (internal/trust) is the test's, empty until h.trust.
	return append(append(os.Environ(), "HOME="+h.dir, "CLAUDE_CONFIG_DIR="+h.cfg, "XDG_CONFIG_HOME="+filepath.Join(h.dir, "xdg"), "NO_COLOR=1",
		"PATH="+filepath.Join(h.dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH")), extra...)
}

// trust runs `claude-ide-bridge trust dir`.
func (h home) trust(t *testing.T, dir string) {
	t.Helper()
	if out, stderr, code := h.command(t, dir, "trust", dir); code != 0 {
		t.Fatalf("trust %s: %d %s %s", dir, code, out, stderr)
	}
}

// command runs a short command of the binary and returns its stdout, stderr and status.
func (h home) command(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	ctx := testbin.Ctx(t)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, h.env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// server is a running `claude-ide-bridge serve`.
type server struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    testbin.Buffer
	errOut testbin.Buffer
	exited <-chan struct{}
	port   int
	lock   string
	token  string
}

var portRE = regexp.MustCompile(`export CLAUDE_CODE_SSE_PORT=(\d+)`)

func (h home) serve(t *testing.T, extraEnv []string, args ...string) *server {
	t.Helper()
	s := &server{}
	s.cmd = exec.Command(bin, append([]string{"serve", "--workspace", h.ws}, args...)...)
	s.cmd.Dir, s.cmd.Env = h.ws, h.env(extraEnv...)
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.errOut
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	s.exited = testbin.Start(t, s.cmd)
	t.Cleanup(func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		if !testbin.Reap(s.cmd, s.exited) {
			t.Error("serve did not stop on SIGTERM")
		}
		if t.Failed() {
			t.Logf("stdout:\n%s\nstderr:\n%s", s.out.String(), s.errOut.String())
		}
	})
	m := s.waitFor(t, portRE)
	s.port, _ = strconv.Atoi(m[1])
	s.lock = filepath.Join(h.cfg, "ide", m[1]+".lock")
	s.token = testbin.ReadLock(t, s.lock).AuthToken
	return s
}

// waitFor waits until stdout matches re and returns the submatches.
func (s *server) waitFor(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.Now().Add(testbin.Bound)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(s.out.String()); m != nil {
			return m
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("stdout never matched %s", re)
	return nil
}

// waitCount waits until sub occurs n times on stdout.
func (s *server) waitCount(t *testing.T, sub string, n int) {
	t.Helper()
	deadline := time.Now().Add(testbin.Bound)
	for strings.Count(s.out.String(), sub) < n {
		if time.Now().After(deadline) {
			t.Fatalf("stdout has %q %d times, want %d", sub, strings.Count(s.out.String(), sub), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *server) claude(t *testing.T) *probe.Client {
	t.Helper()
	c, _, err := probe.Dial(testbin.Ctx(t), s.port, s.token, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Handshake(testbin.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	return c
}

// openDiff runs Claude's openDiff in the background.
func openDiff(t *testing.T, c *probe.Client, path, contents, tab string) <-chan []string {
	ch := make(chan []string, 1)
	ctx := testbin.Ctx(t)
	go func() {
		r, err := c.Tool(ctx, "openDiff", map[string]any{"old_file_path": path, "new_file_path": path, "new_file_contents": contents, "tab_name": tab})
		if err != nil {
			ch <- []string{"error: " + err.Error()}
			return
		}
		ch <- r.Texts()
	}()
	return ch
}

func await(t *testing.T, ch <-chan []string) []string {
	t.Helper()
	return testbin.Recv(t, ch, "openDiff never answered")
}

func reText(s string) *regexp.Regexp { return regexp.MustCompile(regexp.QuoteMeta(s)) }

// stdioInit starts cmd, a `serve --stdio`, and sends it an editor's initialize for ws; it returns
// the bridge's stdin and the first line it answered. The caller closes stdin and waits for cmd.
func stdioInit(t *testing.T, cmd *exec.Cmd, ws string) (io.WriteCloser, string, error) {
	t.Helper()
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"name": "T", "workspaceFolders": []string{ws}}})
	in.Write(append(init, '\n'))
	line, err := bufio.NewReader(out).ReadString('\n')
	return in, line, err
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
