package vimtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// vim is one Vim in its own tmux server.
type vim struct {
	t      *testing.T
	sock   string // tmux socket
	ws     string // workspace (Vim's cwd)
	home   string
	cfg    string // CLAUDE_CONFIG_DIR
	conn   net.Conn
	mu     sync.Mutex
	next   int
	wait   map[int]chan json.RawMessage
	closed chan struct{}
}

// opts are Vim script lines run before the plugin loads (g:claude_ide_bridge_* options).
func startVim(t *testing.T, opts ...string) *vim {
	t.Helper()
	return startVimEnv(t, nil, opts...)
}

// startVimEnv starts Vim with env added to its environment.
func startVimEnv(t *testing.T, extra []string, opts ...string) *vim {
	t.Helper()
	harness.Need(t, "tmux", "the Vim plugin")
	vimBin := harness.Need(t, "vim", "the Vim plugin")
	tmp := t.TempDir()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	v := &vim{t: t, sock: filepath.Join(tmp, "tmux"), ws: ws, home: filepath.Join(tmp, "home"),
		wait: map[int]chan json.RawMessage{}, closed: make(chan struct{})}
	v.cfg = filepath.Join(v.home, "claude")
	os.MkdirAll(v.cfg, 0o700)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	vimrc := filepath.Join(tmp, "vimrc")
	rc := []string{
		"set nocompatible encoding=utf-8 ttimeout ttimeoutlen=20 noswapfile shortmess+=I hidden",
		"set rtp^=" + filepath.Join(root, "editors", "vim"),
		"filetype on",
		"let g:claude_ide_bridge_bin = '" + bridgeBin + "'",
		"let g:claude_ide_bridge_lsp = ['none']",
	}
	rc = append(rc, opts...)
	rc = append(rc, fmt.Sprintf("autocmd VimEnter * let g:test_ch = ch_open('%s', {'mode': 'json', 'waittime': 10000})", ln.Addr()))
	if err := os.WriteFile(vimrc, []byte(strings.Join(rc, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + v.home, "CLAUDE_CONFIG_DIR=" + v.cfg, "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
		"PATH=" + os.Getenv("PATH"), "GORACE=atexit_sleep_ms=0", "TERM=xterm-256color", "TMPDIR=" + tmp}
	env = append(env, extra...)
	cmd := exec.Command("tmux", "-S", v.sock, "-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "45",
		"-c", ws, "--", vimBin, "-Nu", vimrc, "-i", "NONE", "-n")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(v.stop)
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(testbin.Bound))
	v.conn, err = ln.Accept()
	if err != nil {
		t.Fatalf("vim never connected: %v\nscreen:\n%s", err, v.screen())
	}
	go v.read()
	return v
}

func (v *vim) read() {
	defer close(v.closed)
	r := bufio.NewReader(v.conn)
	dec := json.NewDecoder(r)
	for {
		var msg []json.RawMessage
		if err := dec.Decode(&msg); err != nil {
			return
		}
		if len(msg) != 2 {
			continue
		}
		id, err := strconv.Atoi(string(msg[0]))
		if err != nil {
			continue
		}
		v.mu.Lock()
		ch := v.wait[-id]
		delete(v.wait, -id)
		v.mu.Unlock()
		if ch != nil {
			ch <- msg[1]
		}
	}
}

func (v *vim) stop() {
	if v.t.Failed() {
		v.t.Logf("screen at the end:\n%s", v.screen())
	}
	v.sendRaw(`["ex","qa!"]`)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if exec.Command("tmux", "-S", v.sock, "has-session").Run() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	exec.Command("tmux", "-S", v.sock, "kill-server").Run()
	if v.conn != nil {
		v.conn.Close()
	}
	v.stopBridges()
}

// stopBridges ends a bridge that outlived Vim (it stays while a Claude is connected, and ignores
// the hang-up of Vim's terminal once it does) and waits until it has removed its lock, so that
// nothing writes into the test's folders after it.
func (v *vim) stopBridges() {
	locks, _ := filepath.Glob(filepath.Join(v.cfg, "ide", "*.lock"))
	for _, path := range locks {
		var l discovery.Lock
		if data, err := os.ReadFile(path); err != nil || json.Unmarshal(data, &l) != nil || l.PID <= 0 {
			continue
		}
		if p, err := os.FindProcess(l.PID); err == nil {
			p.Signal(syscall.SIGTERM)
		}
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(path); err != nil {
				break
			}
		}
	}
}

func (v *vim) sendRaw(s string) {
	if v.conn != nil {
		v.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
		v.conn.Write([]byte(s + "\n"))
	}
}

// tryEval evaluates a (legacy) Vim expression and returns its JSON value.
func (v *vim) tryEval(expr string) (json.RawMessage, error) {
	v.mu.Lock()
	v.next++
	id := v.next
	ch := make(chan json.RawMessage, 1)
	v.wait[id] = ch
	v.mu.Unlock()
	msg, _ := json.Marshal([]any{"expr", expr, -id})
	v.sendRaw(string(msg))
	select {
	case r := <-ch:
		if string(r) == `"ERROR"` {
			return nil, fmt.Errorf("vim: error evaluating %s", expr)
		}
		return r, nil
	case <-v.closed:
		return nil, fmt.Errorf("vim's channel closed")
	case <-time.After(testbin.Bound):
		return nil, fmt.Errorf("vim did not answer %s", expr)
	}
}

func (v *vim) eval(expr string) json.RawMessage {
	v.t.Helper()
	r, err := v.tryEval(expr)
	if err != nil {
		v.t.Fatalf("%v\nmessages:\n%s", err, v.messages())
	}
	return r
}

func (v *vim) evalInto(out any, expr string) {
	v.t.Helper()
	if err := json.Unmarshal(v.eval(expr), out); err != nil {
		v.t.Fatal(err)
	}
}

func (v *vim) str(expr string) string {
	v.t.Helper()
	var s string
	v.evalInto(&s, expr)
	return s
}

// vimString quotes s as a Vim single-quoted string.
func vimString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// vimError is how an error shows in execute()'s output, which keeps it from failing the call.
var vimError = regexp.MustCompile(`(?m)^E\d+: .*`)

// ex runs Ex commands (lines of cmd) and fails on an error.
func (v *vim) ex(cmd string) {
	v.t.Helper()
	r, err := v.tryEval("execute(" + vimString(cmd) + ")")
	var out string
	json.Unmarshal(r, &out)
	if err == nil && vimError.MatchString(out) {
		err = fmt.Errorf("%s", out)
	}
	if err != nil {
		v.t.Fatalf("%s: %v\nmessages:\n%s", cmd, err, v.messages())
	}
}

func (v *vim) messages() string {
	r, err := v.tryEval("execute('messages')")
	if err != nil {
		return err.Error()
	}
	var s string
	json.Unmarshal(r, &s)
	return s
}

// keys types keys in tmux's notation (one key per argument: "l", "C-v", "Escape", "Enter").
func (v *vim) keys(keys ...string) {
	v.t.Helper()
	args := append([]string{"-S", v.sock, "send-keys"}, keys...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		v.t.Fatalf("tmux send-keys %q: %v\n%s", keys, err, out)
	}
}

// typeText types text literally.
func (v *vim) typeText(s string) {
	v.t.Helper()
	if out, err := exec.Command("tmux", "-S", v.sock, "send-keys", "-l", s).CombinedOutput(); err != nil {
		v.t.Fatalf("tmux send-keys -l: %v\n%s", err, out)
	}
}

func (v *vim) screen() string {
	out, _ := exec.Command("tmux", "-S", v.sock, "capture-pane", "-p").CombinedOutput()
	return string(out)
}

// waitEval polls expr until its JSON value equals want.
func (v *vim) waitEval(want, expr string) {
	v.t.Helper()
	var last string
	if !poll(func() bool {
		r, err := v.tryEval(expr)
		if err != nil {
			last = err.Error()
			return false
		}
		last = string(r)
		return harness.JSONEqual(r, []byte(want))
	}) {
		v.t.Fatalf("waiting for %s\n want %s\n last %s\nmessages:\n%s\nscreen:\n%s", expr, want, last, v.messages(), v.screen())
	}
}

// normal leaves any mode for Normal mode.
func (v *vim) normal() {
	v.t.Helper()
	v.keys("Escape")
	v.keys("Escape")
	v.waitEval(`"n"`, "mode()")
}

// file writes a file in the workspace and returns its path.
func (v *vim) file(name, content string) string {
	v.t.Helper()
	return testbin.WriteFile(v.t, v.ws, name, content)
}

// state is the plugin's claude_ide_bridge#State().
type state struct {
	Running  bool           `json:"running"`
	Ready    bool           `json:"ready"`
	Port     int            `json:"port"`
	LockPath string         `json:"lockPath"`
	Clients  int            `json:"clients"`
	Agents   map[string]int `json:"agents"`
	Diffs    []struct {
		TabName  string `json:"tabName"`
		FilePath string `json:"filePath"`
		State    string `json:"state"`
	} `json:"diffs"`
	Sent int `json:"sent"`
}

func (v *vim) state() state {
	v.t.Helper()
	var s state
	v.evalInto(&s, "claude_ide_bridge#State()")
	return s
}

// claude waits for the bridge and connects a Claude-side client through its lock file.
func (v *vim) claude() *probe.Client {
	v.t.Helper()
	v.waitEval("true", "claude_ide_bridge#State().ready")
	s := v.state()
	l := testbin.ReadLock(v.t, s.LockPath)
	c, _, err := probe.Dial(testbin.Ctx(v.t), s.Port, l.AuthToken, nil)
	if err != nil {
		v.t.Fatal(err)
	}
	v.t.Cleanup(func() { c.Close() })
	if _, err := c.Handshake(testbin.Ctx(v.t)); err != nil {
		v.t.Fatal(err)
	}
	v.waitEval("1", "claude_ide_bridge#State().clients")
	return c
}

// poll calls f until it is true, for at most 15 s.
func poll(f func() bool) bool { return harness.Poll(15*time.Second, f) }
