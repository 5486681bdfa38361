package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// proc is a bridge process. Its stderr is kept for failure messages.
type proc struct {
	cmd    *exec.Cmd
	stderr *testbin.Buffer
	exited chan struct{}
	Trace  string // --trace file
}

// startBridge runs the bridge with args (plus --trace) and env
// CLAUDE_CONFIG_DIR=config. It is stopped (SIGTERM, then SIGKILL) and reaped
// at cleanup.
func startBridge(t testing.TB, config string, args ...string) (*proc, *exec.Cmd) {
	t.Helper()
	cli := claudeBin(t)
	bin := bridgeBin
	p := &proc{stderr: &testbin.Buffer{}, exited: make(chan struct{}),
		Trace: filepath.Join(t.TempDir(), "trace.jsonl")}
	cmd := exec.Command(bin, append(append([]string{"serve"}, args...), "--trace", p.Trace)...)
	// The user's claude is on $PATH, where the bridge looks it up for the line it prints and
	// for claudeCommand (outside the workspace: claudecmd).
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+config, "HOME="+config, "XDG_CONFIG_HOME="+filepath.Join(config, "xdg"),
		"PATH="+filepath.Dir(cli)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Stderr = p.stderr
	p.cmd = cmd
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bridge stderr:\n%s", p.stderr.String())
			t.Logf("bridge trace:\n%s", readFileOr(p.Trace))
		}
	})
	return p, cmd
}

// run starts cmd (from startBridge, after the caller set up pipes).
func (p *proc) run(t testing.TB) {
	t.Helper()
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start bridge: %v", err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { p.stop(t) })
}

// stop ends the bridge, bounded.
func (p *proc) stop(t testing.TB) {
	defer func() {
		// A bridge built with -race exits 66 when it saw a race.
		select {
		case <-p.exited: // ProcessState is set
			if p.cmd.ProcessState.ExitCode() == 66 {
				t.Errorf("data race in the bridge:\n%s", p.stderr.String())
			}
		default:
		}
	}()
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return
	case <-time.After(5 * time.Second):
		t.Errorf("bridge did not exit within 5s of SIGTERM")
	}
	_ = p.cmd.Process.Kill()
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Errorf("bridge pid %d did not exit after SIGKILL", p.cmd.Process.Pid)
	}
}

func readFileOr(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > 20000 {
		b = append([]byte("...\n"), b[len(b)-20000:]...)
	}
	return string(b)
}

// frame is one line of the bridge's --trace file: a WebSocket frame.
type frame struct {
	Client int             `json:"client"`
	Dir    string          `json:"dir"` // "in": from Claude; "out": to Claude
	Msg    json.RawMessage `json:"msg"`

	m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
}

func (f frame) String() string { return fmt.Sprintf("client %d %s %s", f.Client, f.Dir, f.Msg) }

// tool returns the tool name and arguments of an incoming tools/call.
func (f frame) tool() (string, map[string]any) {
	if f.Dir != "in" || f.m.Method != "tools/call" {
		return "", nil
	}
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	_ = json.Unmarshal(f.m.Params, &p)
	return p.Name, p.Arguments
}

// readTrace parses the trace file; a torn last line is ignored.
func readTrace(t testing.TB, path string) []frame {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("read trace: %v", err)
	}
	var out []frame
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var f frame
		if json.Unmarshal(sc.Bytes(), &f) != nil {
			continue
		}
		_ = json.Unmarshal(f.Msg, &f.m)
		out = append(out, f)
	}
	return out
}

// waitTrace polls the trace file until cond holds, bounded by ctx.
func waitTrace(ctx context.Context, t testing.TB, path, what string, cond func([]frame) bool) []frame {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		fs := readTrace(t, path)
		if cond(fs) {
			return fs
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("trace never showed %s: %v", what, ctx.Err())
		}
	}
}

// response returns the outgoing answer to the incoming request req.
func response(fs []frame, req frame) (frame, bool) {
	for _, f := range fs {
		if f.Client == req.Client && f.Dir != req.Dir && f.m.Method == "" && bytes.Equal(f.m.ID, req.m.ID) {
			return f, true
		}
	}
	return frame{}, false
}

// toolCalls returns the incoming tools/call frames for tool name.
func toolCalls(fs []frame, name string) []frame {
	var out []frame
	for _, f := range fs {
		if n, _ := f.tool(); n == name {
			out = append(out, f)
		}
	}
	return out
}

// resultTexts returns the text blocks of a tools/call answer.
func resultTexts(f frame) []string {
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(f.m.Result, &r)
	var out []string
	for _, c := range r.Content {
		out = append(out, c.Text)
	}
	return out
}

func hasMethod(fs []frame, dir, method string) bool { return countMethod(fs, dir, method) > 0 }

func countMethod(fs []frame, dir, method string) int {
	n := 0
	for _, f := range fs {
		if f.Dir == dir && f.m.Method == method {
			n++
		}
	}
	return n
}

func short(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return strings.TrimSpace(s)
}

// serveClaudeLine waits for the claude line serve prints (the claude on $PATH, which startBridge
// puts there) and returns its arguments after the program.
func serveClaudeLine(t *testing.T, s *session, out *testbin.Buffer) string {
	t.Helper()
	var line string
	re := regexp.MustCompile(`(?m)^  \S*/claude (.*)$`)
	waitUntil(s.bound(stepBound), t, "serve's claude line", func() bool {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			line = m[1]
		}
		return line != ""
	})
	return line
}

// runServe runs serve (p and cmd as startBridge made them, set up further by the caller) with
// its output in the buffer it returns, which a failed test logs, and returns its lock's port.
func (s *session) runServe(p *proc, cmd *exec.Cmd) (*testbin.Buffer, int) {
	s.t.Helper()
	out := &testbin.Buffer{}
	cmd.Stdout = out
	p.run(s.t)
	s.t.Cleanup(func() {
		if s.t.Failed() {
			s.t.Logf("serve's output:\n%s", out.String())
		}
	})
	return out, waitLockPort(s.bound(stepBound), s.t, s.Config)
}

// serveClaude starts a fake API and a CLI with o, and waits until serve p saw it connect and
// list the tools: before that the CLI (2.1.328) uses none of the IDE's (no getDiagnostics
// before an Edit, no openDiff), its screen saying "MCP server ide still connecting".
func (s *session) serveClaude(p *proc, o cliOptions) {
	s.t.Helper()
	before := countMethod(readTrace(s.t, p.Trace), "in", "tools/list")
	s.startClaude(o)
	waitTrace(s.bound(connectBound), s.t, p.Trace, "ide_connected and tools/list", func(fs []frame) bool {
		return hasMethod(fs, "in", "ide_connected") && countMethod(fs, "in", "tools/list") > before
	})
}
