//go:build linux

package nvimtest

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// Remote mode (issue 19): Neovim here, the bridge and Claude "on another machine". The other
// machine is simulated with a mount namespace: its REMOTE folder is a bind mount of the LOCAL
// one made inside the namespace only, so outside it REMOTE is an empty folder. A path that is
// not translated names nothing on the other side, and a write there shows on disk here.

// needNamespaces skips (loudly) when mount namespaces cannot be made; in CI it fails.
func needNamespaces(t *testing.T) {
	t.Helper()
	why := ""
	if os.Getuid() != 0 {
		why = "not root"
	} else if err := exec.Command("unshare", "-m", "true").Run(); err != nil {
		why = "unshare -m: " + err.Error()
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("remote-mode test cannot run in CI: %s", why)
	}
	t.Skipf("remote-mode test NOT running (%s): it needs root for a mount namespace", why)
}

// split is the two views of one project: local (Neovim's) and remote (the bridge's).
type split struct {
	root, local, remote, cfg, home string
}

func newSplit(t *testing.T) split {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	s := split{root: root, local: filepath.Join(root, "local", "app"), remote: filepath.Join(root, "srv", "app"),
		cfg: filepath.Join(root, "cfg"), home: filepath.Join(root, "home")}
	for _, d := range []string{s.local, s.remote, s.cfg, s.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// shLauncher is the remote command of the fast suite: a shell in a mount namespace of its own
// where REMOTE is LOCAL.
func (s split) shLauncher() []string {
	return []string{"unshare", "-m", "sh", "-c", `mount --bind "$1" "$2" && shift 2 && exec "$@"`, "launcher", s.local, s.remote}
}

// startRemote starts Neovim in LOCAL with the plugin in remote mode through cmd.
func (s split) startRemote(t *testing.T, cmd []string, extra map[string]any, vars ...string) *env {
	t.Helper()
	e := &env{proj: s.local, cfg: s.cfg}
	e.n = startNvim(t, s.local, append([]string{"CLAUDE_CONFIG_DIR=" + s.cfg, "HOME=" + s.home}, vars...)...)
	e.n.lua(t, `_G.NOTES = {}
		vim.notify = function(m, l) table.insert(_G.NOTES, m) end`)
	opts := map[string]any{"remote": map[string]any{"cmd": cmd, "path_map": map[string]string{s.local: s.remote}, "bin": bridgeBin}}
	for k, v := range extra {
		opts[k] = v
	}
	t.Cleanup(func() { e.stopBridge(t) })
	e.n.lua(t, `require("claude-ide-bridge").setup(...)`, opts)
	e.n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
	return e
}

func (e *env) lock(t *testing.T) discovery.Lock {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(e.cfg, "ide", "*.lock"))
	if len(names) != 1 {
		t.Fatalf("lock files: %q, want one", names)
	}
	return testbin.ReadLock(t, names[0])
}

func (e *env) notes(t *testing.T) string {
	t.Helper()
	return e.n.str(t, `return table.concat(_G.NOTES, "\n")`)
}

// TestRemoteShLauncher: the plugin starts the bridge through a command (here sh in a mount
// namespace); the lock holds REMOTE folders and the bridge's pid; Claude sees REMOTE paths;
// Claude's diff opens on the LOCAL path; the bridge dying is reported and :ClaudeCodeStart
// brings it back.
func TestRemoteShLauncher(t *testing.T) {
	needNamespaces(t)
	s := newSplit(t)
	local := filepath.Join(s.local, "hello.txt")
	remote := filepath.Join(s.remote, "hello.txt")
	if err := os.WriteFile(local, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := s.startRemote(t, s.shLauncher(), nil)

	l := e.lock(t)
	if len(l.WorkspaceFolders) != 1 || l.WorkspaceFolders[0] != s.remote {
		t.Errorf("lock workspaceFolders = %q, want the REMOTE %s", l.WorkspaceFolders, s.remote)
	}
	if l.PID == e.n.cmd.Process.Pid {
		t.Errorf("lock pid is Neovim's; the other side cannot see it")
	}
	if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", l.PID)); !strings.Contains(string(cmdline), "serve") {
		t.Errorf("lock pid %d is not the bridge (%q)", l.PID, cmdline)
	}

	// :checkhealth knows remote mode: it checks the command here, not a local bridge or claude.
	e.n.ex(t, "checkhealth claude-ide-bridge")
	health := e.n.str(t, `return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")`)
	if !strings.Contains(health, "remote mode: the bridge runs through unshare") || strings.Contains(health, "ERROR") || !strings.Contains(health, "doctor") {
		t.Errorf("checkhealth in remote mode:\n%s", health)
	}
	e.n.ex(t, "bwipeout")
	e.c = dialClaude(t, e.cfg)
	e.n.waitLua(t, `1`, `return require("claude-ide-bridge").state().clients`)
	e.edit(t, local)
	e.n.input(t, "<Esc>0wve")
	e.c.waitNote(t, "selection_changed", func(p json.RawMessage) bool {
		got, ok := decodeSel(p)
		return ok && got.Text == "world" && got.FilePath == remote
	})

	// Claude's openDiff on the REMOTE path: Neovim shows it on the LOCAL path; :w accepts.
	res := e.openDiff(t, remote, "hello there\n", "remote-1")
	e.n.waitLua(t, `[["remote-1", "`+local+`"]]`, `local o = {}
		for _, d in ipairs(require("claude-ide-bridge.diff").list()) do o[#o + 1] = { d.tab_name, d.file_path } end
		return o`)
	e.n.ex(t, "write")
	if r := toolOf(t, await(t, res)); r.IsError || r.texts()[0] != "FILE_SAVED" {
		t.Errorf("openDiff = %+v, want FILE_SAVED", r)
	}
	if got := harness.FileText(local); got != "hello world\n" {
		t.Errorf("the plugin wrote the file: %q", got)
	}
	e.c.tool(t, "close_tab", map[string]any{"tab_name": "remote-1"})

	// The remote side dies mid-diff: reported, the diff closed unaccepted, nothing written.
	res = e.openDiff(t, remote, "never\n", "remote-2")
	e.waitDiffs(t, "remote-2=pending")
	syscall.Kill(l.PID, syscall.SIGTERM)
	if r := toolOf(t, await(t, res)); r.IsError || r.texts()[0] != "DIFF_REJECTED" {
		t.Errorf("openDiff when the remote side ended = %+v, want DIFF_REJECTED", r)
	}
	e.waitDiffs(t)
	e.n.waitLua(t, `false`, `return require("claude-ide-bridge").state().running`)
	if n := e.notes(t); !strings.Contains(n, "remote bridge") || !strings.Contains(n, "nothing was written") || !strings.Contains(n, ":ClaudeCodeStart") {
		t.Errorf("Neovim did not say why: %q", n)
	}
	if got := harness.FileText(local); got != "hello world\n" {
		t.Errorf("file after the drop: %q", got)
	}
	e.n.ex(t, "ClaudeCodeStart")
	e.n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
	if l2 := e.lock(t); l2.PID == l.PID || l2.WorkspaceFolders[0] != s.remote {
		t.Errorf("after :ClaudeCodeStart the lock is %+v", l2)
	}
}

// TestRemoteCommands: the commands built from the option, for ssh and docker (no process).
func TestRemoteCommands(t *testing.T) {
	n := startNvim(t, t.TempDir())
	n.lua(t, `require("claude-ide-bridge").setup(...)`, map[string]any{"auto_start": false,
		"remote": map[string]any{"cmd": []string{"ssh", "build-box"}, "path_map": map[string]string{"/Users/me/app": "/srv/my app", "/Users/me": "/home/me"}}})
	var got []string
	n.luaInto(t, &got, `return require("claude-ide-bridge.remote").bridge_cmd()`)
	want := []string{"ssh", "build-box", `exec 'claude-ide-bridge' 'serve' '--stdio' '--path-map' '/Users/me/app=/srv/my app' '--path-map' '/Users/me=/home/me'`}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("ssh bridge command = %q\nwant %q", got, want)
	}
	n.luaInto(t, &got, `return require("claude-ide-bridge.remote").terminal_cmd("claude", {CLAUDE_CODE_SSE_PORT = "4242", no_proxy = "127.0.0.1,localhost,::1"}, "/srv/my app/it's")`)
	want = []string{"ssh", "-t", "build-box", `cd '/srv/my app/it'\''s' && exec env 'CLAUDE_CODE_SSE_PORT=4242' 'no_proxy=127.0.0.1,localhost,::1' claude`}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("ssh terminal command = %q\nwant %q", got, want)
	}
	var dir string
	n.luaInto(t, &dir, `return require("claude-ide-bridge.remote").to_remote("/Users/me/app/sub")`)
	if dir != "/srv/my app/sub" {
		t.Errorf("to_remote = %q", dir)
	}
	var out []any
	n.luaInto(t, &out, `return { require("claude-ide-bridge.remote").to_remote("/etc") }`)
	if len(out) != 2 || out[0] != nil {
		t.Errorf("to_remote of an unmapped folder = %v, want nil and why", out)
	}
	n.lua(t, `require("claude-ide-bridge.config").options.remote = {cmd = {"docker", "exec", "-i", "devbox"}}`)
	n.luaInto(t, &got, `return require("claude-ide-bridge.remote").terminal_cmd({"claude"}, {}, "/w")`)
	want = []string{"docker", "exec", "-t", "-i", "devbox", "sh", "-c", `cd '/w' && exec env  'claude'`}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("docker terminal command = %q\nwant %q", got, want)
	}
	var msg string
	n.luaInto(t, &msg, `return require("claude-ide-bridge.remote").exit_message(255, {"Connection to build-box closed.\27[2J"}, true)`)
	if strings.ContainsRune(msg, 0x1b) || !strings.Contains(msg, "^[[2J") || !strings.Contains(msg, "255") {
		t.Errorf("exit message %q: want the status and the stderr escaped", msg)
	}
}

// sshd starts the test's own OpenSSH server on a free loopback port, in a mount namespace where
// REMOTE is LOCAL, and returns the ssh command that reaches it as root with a generated key.
func (s split) sshd(t *testing.T) []string {
	t.Helper()
	sshdBin := "/usr/sbin/sshd"
	if _, err := os.Stat(sshdBin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("sshd missing in CI (scripts/test installs openssh-server)")
		}
		t.Skip("sshd NOT installed (apt-get install openssh-server): the ssh test is NOT running")
	}
	dir := filepath.Join(s.root, "sshd")
	os.MkdirAll(dir, 0o700)
	os.MkdirAll("/run/sshd", 0o755) // privilege separation directory
	for _, k := range []string{"host", "client"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	pub, _ := os.ReadFile(filepath.Join(dir, "client.pub"))
	os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cfg := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile none
AuthorizedKeysFile %s
StrictModes no
PermitRootLogin yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
AcceptEnv *
PrintMotd no
`, port, filepath.Join(dir, "host"), filepath.Join(dir, "authorized_keys"))
	os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(cfg), 0o600)
	cmd := exec.Command("unshare", "-m", "sh", "-c", `mount --bind "$1" "$2" && shift 2 && exec "$@"`, "sshd", s.local, s.remote,
		sshdBin, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	done := testbin.Start(t, cmd)
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		testbin.Reap(cmd, done)
		if t.Failed() {
			t.Logf("sshd log:\n%s", logs.String())
		}
	})
	if !poll(func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			c.Close()
		}
		return err == nil
	}) {
		t.Fatalf("sshd did not listen: %s", logs.String())
	}
	return []string{"ssh", "-p", strconv.Itoa(port), "-i", filepath.Join(dir, "client"),
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
		"-o", "SendEnv=CLAUDE_CONFIG_DIR", "-o", "SendEnv=ANTHROPIC_*", "-o", "SendEnv=DISABLE_*", "-o", "SendEnv=CLAUDE_CODE_*", "-o", "SendEnv=LANG",
		"root@127.0.0.1"}
}

// TestRemoteSSHDropMidDiff: "The ssh connection killed mid-diff: the diff is rejected, Neovim
// says why, nothing is written."
func TestRemoteSSHDropMidDiff(t *testing.T) {
	needNamespaces(t)
	s := newSplit(t)
	local := filepath.Join(s.local, "a.txt")
	os.WriteFile(local, []byte("one\n"), 0o644)
	e := s.startRemote(t, s.sshd(t), nil)
	l := e.lock(t)
	if l.WorkspaceFolders[0] != s.remote {
		t.Fatalf("lock folders %q", l.WorkspaceFolders)
	}
	e.c = dialClaude(t, e.cfg)
	e.n.waitLua(t, `1`, `return require("claude-ide-bridge").state().clients`)
	res := e.openDiff(t, filepath.Join(s.remote, "a.txt"), "two\n", "ssh-1")
	e.waitDiffs(t, "ssh-1=pending")
	// Kill the server side of the connection (the session's sshd, the bridge's parent), as a
	// dropped network would: the client sees the connection closed.
	stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", l.PID))
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	ppid, _ := strconv.Atoi(f[1])
	if ppid <= 1 {
		t.Fatalf("no parent of the bridge: %q", stat)
	}
	syscall.Kill(ppid, syscall.SIGKILL)
	if r := toolOf(t, await(t, res)); r.IsError || r.texts()[0] != "DIFF_REJECTED" {
		t.Errorf("openDiff after the drop = %+v, want DIFF_REJECTED", r)
	}
	e.waitDiffs(t)
	e.n.waitLua(t, `false`, `return require("claude-ide-bridge").state().running`)
	if n := e.notes(t); !strings.Contains(n, "ssh") || !strings.Contains(n, "255") || !strings.Contains(n, "nothing was written") {
		t.Errorf("Neovim did not say why: %q", n)
	}
	if got := harness.FileText(local); got != "one\n" {
		t.Errorf("file after the drop: %q", got)
	}
	e.n.ex(t, "ClaudeCodeStart")
	e.n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
}

// TestRemoteRealClaude: the whole way with the real CLI on the remote side, through sh (default
// suite) and through ssh: the CLI in the REMOTE folder connects, sees the selection with REMOTE
// paths, its Edit opens a diff on the LOCAL path, :w accepts, the CLI writes the file, and the
// LOCAL file and buffer show it.
func TestRemoteRealClaude(t *testing.T) {
	bin := harness.ClaudeBin(t, "the remote test with the real Claude Code CLI")
	needNamespaces(t)
	for _, via := range []string{"sh", "ssh"} {
		t.Run(via, func(t *testing.T) {
			s := newSplit(t)
			cmd := s.shLauncher()
			if via == "ssh" {
				cmd = s.sshd(t)
			}
			realClaudeRemote(t, s, cmd, bin)
		})
	}
}

func realClaudeRemote(t *testing.T, s split, cmd []string, bin string) {
	api := fakeapi.New()
	t.Cleanup(api.Close)
	harness.SeedConfig(t, s.cfg, s.remote)
	local := filepath.Join(s.local, "hello.txt")
	remote := filepath.Join(s.remote, "hello.txt")
	os.WriteFile(local, []byte("hello world\n"), 0o644)
	e := s.startRemote(t, cmd, map[string]any{
		"terminal_cmd": []string{bin, "--permission-mode", "default"},
		"terminal":     map[string]any{"size": 0.7},
	}, append(harness.OfflineEnv(api.URL), "LANG=C.UTF-8")...)
	n := e.n
	t.Cleanup(func() {
		n.tryLua(stopClaudeJob)
	})
	n.ex(t, "set columns=220 lines=50")
	n.ex(t, "edit "+local)
	n.ex(t, "ClaudeCode")
	screen := func() string { return claudeScreen(t, n) }
	if !harness.Poll(90*time.Second, func() bool {
		var c int
		n.luaInto(t, &c, `return require("claude-ide-bridge").state().clients`)
		return c == 1 && strings.Contains(screen(), "? for shortcuts")
	}) {
		t.Fatalf("the CLI did not connect and get ready; screen:\n%s\nnotes: %s", screen(), e.notes(t))
	}
	selectWorld(t, n, screen)
	api.Push(fakeapi.Edit(remote, "world", "there", "EDIT ACCEPTED")...)
	typePrompt(t, n, "edit hello")
	first := api.MustMain(t, 60*time.Second, 1, screen)
	if !strings.Contains(first.Text(), "selected the lines 1 to 1 from "+remote) {
		t.Errorf("the model was not told the selection with the REMOTE path:\n%s", first.LastUserText())
	}
	if !harness.Poll(60*time.Second, func() bool {
		var d []struct {
			FilePath string `json:"file_path"`
		}
		n.luaInto(t, &d, `return require("claude-ide-bridge.diff").list()`)
		return len(d) == 1 && d[0].FilePath == local
	}) {
		t.Fatalf("no diff on the LOCAL path; screen:\n%s", screen())
	}
	acceptInEditor(t, n, local, screen)
	// The LOCAL buffer shows it (after :checktime, in case no file watcher reloaded it).
	if !harness.Poll(15*time.Second, func() bool {
		n.ex(t, "checktime")
		var lines []string
		n.luaInto(t, &lines, `return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false)`, local)
		return len(lines) == 1 && lines[0] == "hello there"
	}) {
		t.Errorf("the LOCAL buffer does not show the CLI's write")
	}
}
