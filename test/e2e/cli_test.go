package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// cli is a real Claude Code CLI running in a pty.
type cli struct {
	t       testing.TB
	cmd     *exec.Cmd
	pty     *os.File
	scr     *screen
	exited  chan struct{}
	Project string // cwd, symlink-resolved
	Config  string // CLAUDE_CONFIG_DIR
	API     *fakeapi.Server
}

// cliOptions configures startCLI.
type cliOptions struct {
	Project string // project dir; a fresh temp dir when empty
	Config  string // config dir; a fresh temp dir when empty
	Port    int    // CLAUDE_CODE_SSE_PORT; unset when 0
	Env     []string
	Args    []string
	// AsGiven: Args alone, without the --permission-mode default every other test starts with.
	AsGiven bool
}

// claudeBin returns $CLAUDE_BIN or skips the test loudly (fails in CI).
func claudeBin(t testing.TB) string {
	return harness.ClaudeBin(t, "the end-to-end suite against the real Claude Code CLI")
}

// realDir returns a fresh, symlink-resolved temp dir.
func realDir(t testing.TB) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// startCLI runs the CLI against api. It is killed (and reaped) at cleanup;
// on failure the last screen and the API's requests are logged.
func startCLI(t testing.TB, api *fakeapi.Server, o cliOptions) *cli {
	bin := claudeBin(t)
	if o.Project == "" {
		o.Project = realDir(t)
	}
	if o.Config == "" {
		o.Config = realDir(t)
	}
	home := realDir(t)
	harness.SeedConfig(t, o.Config, o.Project)

	args := append([]string{"--permission-mode", "default"}, o.Args...)
	if o.AsGiven {
		args = o.Args
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = o.Project
	cmd.Env = append(harness.OfflineEnv(api.URL),
		"HOME="+home,
		"PATH="+os.Getenv("PATH"),
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"CLAUDE_CONFIG_DIR="+o.Config,
		"ENABLE_IDE_INTEGRATION=true",
		"no_proxy=127.0.0.1,localhost,::1",
		"NO_PROXY=127.0.0.1,localhost,::1",
	)
	if o.Port != 0 {
		cmd.Env = append(cmd.Env, "CLAUDE_CODE_SSE_PORT="+strconv.Itoa(o.Port))
	}
	cmd.Env = append(cmd.Env, o.Env...)

	c := runInPTY(t, cmd, api.Dump)
	c.Project, c.Config, c.API = o.Project, o.Config, api
	return c
}

// runInPTY starts cmd in a 50x160 pty whose screen the cli keeps. It is killed (and reaped) at
// cleanup; on failure the last screen and dump() (what the fake model API was sent) are logged.
func runInPTY(t testing.TB, cmd *exec.Cmd, dump func() string) *cli {
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 160})
	if err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	c := &cli{t: t, cmd: cmd, pty: f, scr: newScreen(50, 160), exited: make(chan struct{})}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				// A TUI that asks where the cursor is (Codex) waits for the terminal's answer.
				if bytes.Contains(buf[:n], []byte("\x1b[6n")) {
					f.Write([]byte("\x1b[1;1R"))
				}
				c.scr.write(buf[:n])
			}
			if err != nil {
				c.scr.eof()
				return
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last screen of %s (pid %d):\n%s", filepath.Base(cmd.Path), cmd.Process.Pid, c.scr.Dump())
			t.Logf("fake API requests:\n%s", dump())
		}
		c.kill()
		f.Close()
		select {
		case <-readDone:
		case <-time.After(10 * time.Second):
			t.Errorf("pty reader did not stop")
		}
	})
	return c
}

// kill ends the CLI and waits for it, bounded.
func (c *cli) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
		return
	case <-time.After(5 * time.Second):
	}
	_ = c.cmd.Process.Kill()
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		c.t.Errorf("claude pid %d did not exit after SIGKILL", c.cmd.Process.Pid)
	}
}

// WaitText waits (bounded by ctx) until want is on the visible screen.
func (c *cli) WaitText(ctx context.Context, want string) {
	c.t.Helper()
	err := c.scr.waitFor(ctx, fmt.Sprintf("%q", want), func(s *screen) bool { return s.containsLocked(want) })
	if err != nil {
		c.t.Fatalf("claude: %v", err)
	}
}

// Type types s into the TUI and then presses Enter. The TUI treats a fast
// burst that ends in "\r" as a paste, so Enter is sent separately.
func (c *cli) Type(s string) {
	c.t.Helper()
	c.send(s)
	time.Sleep(300 * time.Millisecond) // not an assertion: lets the TUI leave paste detection
	c.send("\r")
}

// Choose answers a terminal menu with key, pressing it again while the
// question is still on screen: the TUI ignores keys that arrive while it is
// still drawing the menu.
func (c *cli) Choose(ctx context.Context, question, key string) {
	c.t.Helper()
	c.WaitText(ctx, question)
	for {
		c.send(key)
		probe, cancel := context.WithTimeout(ctx, time.Second)
		err := c.scr.waitFor(probe, "the menu to close", func(s *screen) bool { return !s.containsLocked(question) })
		cancel()
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			c.t.Fatalf("claude: %q stayed on screen: %v", question, ctx.Err())
		}
	}
}

// send writes raw bytes (keys) to the pty.
func (c *cli) send(s string) {
	c.t.Helper()
	if _, err := c.pty.Write([]byte(s)); err != nil {
		c.t.Fatalf("write to claude pty: %v", err)
	}
}
