package doctor

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type fixture struct {
	dir, cwd string
	env      map[string]string
}

func newFixture(t *testing.T) *fixture {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	f := &fixture{dir: filepath.Join(root, "ide"), cwd: filepath.Join(root, "proj"), env: map[string]string{}}
	os.MkdirAll(f.cwd, 0o755)
	return f
}

// listen is a live port on loopback for the test's lifetime.
func listen(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

func closedPort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return p
}

func deadPID(t *testing.T) int {
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Skip(err)
	}
	return c.Process.Pid
}

func (f *fixture) lock(t *testing.T, port, pid int, name string, folders ...string) {
	if _, err := discovery.WriteLock(f.dir, port, discovery.Lock{PID: pid, WorkspaceFolders: folders, IDEName: name, Transport: "ws", AuthToken: "t"}); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) run() (string, bool) {
	var b bytes.Buffer
	failed := Print(&b, Check(Env{Dirs: []string{f.dir}, Cwd: f.cwd, Getenv: func(k string) string { return f.env[k] }}))
	return b.String(), failed
}

func expect(t *testing.T, out string, failed, wantFail bool, want ...string) {
	t.Helper()
	if failed != wantFail {
		t.Errorf("failed = %v, want %v\n%s", failed, wantFail, out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("report lacks %q:\n%s", w, out)
		}
	}
}

func TestNoLock(t *testing.T) {
	f := newFixture(t)
	out, failed := f.run()
	expect(t, out, failed, true, "FAIL  no lock file in "+f.dir, "CLAUDE_CONFIG_DIR")
}

func TestHealthy(t *testing.T) {
	f := newFixture(t)
	port := listen(t)
	f.lock(t, port, os.Getpid(), "Neovim", f.cwd)
	f.env["CLAUDE_CODE_SSE_PORT"] = strconv.Itoa(port)
	out, failed := f.run()
	expect(t, out, failed, false, "connects to Neovim on port "+strconv.Itoa(port))
	if strings.Contains(out, "warn") {
		t.Errorf("warnings in a healthy setup:\n%s", out)
	}
}

func TestPIDNotAlive(t *testing.T) {
	f := newFixture(t)
	f.lock(t, listen(t), deadPID(t), "Neovim", f.cwd)
	out, failed := f.run()
	// Issue 39 item 10: it blamed "another machine" for a killed bridge's lock; it names the fix.
	expect(t, out, failed, true, "is not alive here", "locks --clean` removes the lock", "no live IDE server serves")
}

func TestPortNotAnswering(t *testing.T) {
	f := newFixture(t)
	f.lock(t, closedPort(t), os.Getpid(), "Neovim", f.cwd)
	out, failed := f.run()
	expect(t, out, failed, true, "nothing answers on 127.0.0.1:", "locks --clean` removes the lock")
}

func TestWorkspaceNotMatchingCwd(t *testing.T) {
	f := newFixture(t)
	f.lock(t, listen(t), os.Getpid(), "Neovim", "/Users/me/app") // a LOCAL path: no path map
	out, failed := f.run()
	expect(t, out, failed, true, "does not serve "+f.cwd, "no live IDE server serves")
	// A folder that is a string prefix but not a parent does not match.
	f2 := newFixture(t)
	f2.lock(t, listen(t), os.Getpid(), "Neovim", f2.cwd[:len(f2.cwd)-1])
	out, failed = f2.run()
	expect(t, out, failed, true, "does not serve")
	// A subfolder of a workspace folder does.
	f3 := newFixture(t)
	f3.lock(t, listen(t), os.Getpid(), "Neovim", filepath.Dir(f3.cwd))
	out, failed = f3.run()
	expect(t, out, failed, false, "connects to Neovim")
	// An empty folder serves nothing: the CLI skips it (`if(!folder)continue` in 2.1.328's lock
	// matching), though "" + "/" is a prefix of every cwd.
	f4 := newFixture(t)
	f4.lock(t, listen(t), os.Getpid(), "Neovim", "")
	out, failed = f4.run()
	expect(t, out, failed, true, "does not serve "+f4.cwd, "no live IDE server serves")
}

// A relative cwd (doctor --cwd ../app) or none is resolved as the CLI resolves its own.
func TestRelativeCwd(t *testing.T) {
	f := newFixture(t)
	f.lock(t, listen(t), os.Getpid(), "Neovim", f.cwd)
	t.Chdir(filepath.Dir(f.cwd))
	abs := f.cwd
	for _, cwd := range []string{"proj", "./proj/", ""} {
		if cwd == "" {
			t.Chdir(abs)
		}
		f.cwd = cwd
		out, failed := f.run()
		expect(t, out, failed, false, "serves "+abs, "connects to Neovim")
	}
}

func TestSSEPortWithoutLock(t *testing.T) {
	f := newFixture(t)
	f.lock(t, listen(t), os.Getpid(), "Neovim", f.cwd)
	f.env["CLAUDE_CODE_SSE_PORT"] = "1"
	out, failed := f.run()
	expect(t, out, failed, true, "CLAUDE_CODE_SSE_PORT=1 but no lock file has that port")
}

func TestTwoMatch(t *testing.T) {
	f := newFixture(t)
	f.lock(t, listen(t), os.Getpid(), "A", f.cwd)
	f.lock(t, listen(t), os.Getpid(), "B", f.cwd)
	out, failed := f.run()
	expect(t, out, failed, false, "2 live IDE servers serve", "exactly one")
}

func TestProxy(t *testing.T) {
	f := newFixture(t)
	f.lock(t, listen(t), os.Getpid(), "Neovim", f.cwd)
	f.env["HTTPS_PROXY"] = "http://proxy:3128"
	f.env["no_proxy"] = "localhost,example.com"
	out, failed := f.run()
	expect(t, out, failed, true, "HTTPS_PROXY set but no_proxy/NO_PROXY lacks 127.0.0.1")
	f.env["NO_PROXY"] = "127.0.0.1,localhost,::1"
	out, failed = f.run()
	expect(t, out, failed, false, "no_proxy holds 127.0.0.1")
}

// Lock contents are untrusted: printed escaped, never raw.
func TestEscapesLockContents(t *testing.T) {
	f := newFixture(t)
	f.lock(t, listen(t), os.Getpid(), "Evil\x1b]0;pwned\x07\x1b[2J", f.cwd, "/x\nFAKE ok")
	os.WriteFile(filepath.Join(f.dir, "99.lock"), []byte("{\x1b[31m"), 0o600)
	out, _ := f.run()
	if strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, "\nFAKE") {
		t.Errorf("raw control characters in the report: %q", out)
	}
	expect(t, out, true, true, `Evil\x1b]0;pwned\x07\x1b[2J`, "unreadable")
}

// Facts: auto, acceptEdits, dontAsk and bypassPermissions never call openDiff. A settings file in
// force that chooses one is a warning naming the file; none chosen is fine (the bridge's
// commands add --permission-mode default).
func TestPermissionMode(t *testing.T) {
	f := newFixture(t)
	home := t.TempDir()
	f.env["HOME"] = home
	out, _ := f.run()
	expect(t, out, false, false, "ok    no permission mode in Claude's settings")
	user := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(user), 0o755)
	os.WriteFile(user, []byte(`{"permissions":{"defaultMode":"acceptEdits"}}`), 0o644)
	out, _ = f.run()
	expect(t, out, false, false, "warn  permission mode acceptEdits (set by "+user+"): Claude writes its edits without showing them as diffs")
	proj := filepath.Join(f.cwd, ".claude", "settings.local.json")
	os.MkdirAll(filepath.Dir(proj), 0o755)
	os.WriteFile(proj, []byte(`{"permissions":{"defaultMode":"default"}}`), 0o644)
	out, _ = f.run()
	expect(t, out, false, false, "ok    permission mode default (set by "+proj+")")
}
