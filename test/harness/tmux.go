package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// Tmux is a tmux server of the test's own (its socket in a temporary folder) with one window,
// for a program that needs a real terminal: serve's prompts and pager, Helix.
type Tmux struct {
	t         testing.TB
	bin, sock string
}

// StartTmux runs script (a sh script's lines after #!/bin/sh: tmux starts a command in its own
// environment, so the script carries the exports) in a detached width x height window of a new
// tmux server, killed when the test ends.
func StartTmux(t testing.TB, tmux string, width, height int, script string) *Tmux {
	t.Helper()
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.WriteFile(run, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	m := &Tmux{t: t, bin: tmux, sock: filepath.Join(dir, "tmux.sock")}
	m.Run("new-session", "-d", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), run)
	t.Cleanup(func() { exec.Command(tmux, "-S", m.sock, "kill-server").Run() })
	return m
}

// Run runs a tmux command on this server and returns its output; a failure fails the test.
func (m *Tmux) Run(args ...string) string {
	m.t.Helper()
	out, err := exec.CommandContext(testbin.Ctx(m.t), m.bin, append([]string{"-S", m.sock}, args...)...).CombinedOutput()
	if err != nil {
		m.t.Fatalf("tmux %v: %v %s", args, err, out)
	}
	return string(out)
}

// Keys types keys (tmux send-keys names: "Enter", "Escape", or text).
func (m *Tmux) Keys(keys ...string) { m.t.Helper(); m.Run(append([]string{"send-keys"}, keys...)...) }

// Screen is the window's text, wrapped lines joined.
func (m *Tmux) Screen() string { m.t.Helper(); return m.Run("capture-pane", "-p", "-J") }

// WaitScreen waits (bounded) until the screen shows want and returns that screen.
func (m *Tmux) WaitScreen(want string) string {
	m.t.Helper()
	return m.waitScreen(func(sc string) bool { return strings.Contains(sc, want) }, "the screen never showed %q", want)
}

// WaitGone waits (bounded) until the screen no longer shows gone.
func (m *Tmux) WaitGone(gone string) {
	m.t.Helper()
	m.waitScreen(func(sc string) bool { return !strings.Contains(sc, gone) }, "the screen still shows %q", gone)
}

func (m *Tmux) waitScreen(ok func(string) bool, failure, text string) string {
	m.t.Helper()
	for deadline := time.Now().Add(testbin.Bound); ; time.Sleep(50 * time.Millisecond) {
		if sc := m.Screen(); ok(sc) {
			return sc
		}
		if time.Now().After(deadline) {
			m.t.Fatalf(failure+":\n%s", text, m.Screen())
		}
	}
}
