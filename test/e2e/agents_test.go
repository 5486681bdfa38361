package e2e

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeagents"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// The Gemini CLI (0.61.0) and Qwen Code (0.24.4) served by `serve` as their IDE companion
// (internal/companion, docs/gemini.md): each against a scripted fake model, in a pty, with
// serve's terminal reviewer answering the diffs.

// agentBin returns the CLI from env (scripts/ensure-agent-clis) or skips the test loudly.
func agentBin(t *testing.T, env string) string {
	return harness.AgentBin(t, env, "the "+env+" end-to-end test")
}

// agentServe is serve in a workspace, with a private $TMPDIR (Gemini's discovery folder) and
// $QWEN_HOME, answered through its stdin.
type agentServe struct {
	t       *testing.T
	ctx     context.Context
	Project string
	Config  string
	Tmp     string
	Qwen    string
	proc    *proc
	out     *testbin.Buffer
	keys    io.Writer
}

// agentServeOptions are a test's changes to startAgentServe's serve.
type agentServeOptions struct {
	// Like shares its workspace, $TMPDIR and $QWEN_HOME: a second bridge for the same folder,
	// whose discovery files the agents see beside the first's.
	Like *agentServe
	// Path goes first on serve's $PATH: where it finds the agents' programs for its banner.
	Path string
	// Args are more serve flags.
	Args []string
}

func startAgentServe(t *testing.T, agents string, o agentServeOptions) *agentServe {
	ctx, cancel := context.WithTimeout(context.Background(), testBound)
	t.Cleanup(cancel)
	s := &agentServe{t: t, ctx: ctx, Config: realDir(t), out: &testbin.Buffer{}}
	if o.Like != nil {
		s.Project, s.Tmp, s.Qwen = o.Like.Project, o.Like.Tmp, o.Like.Qwen
	} else {
		s.Project, s.Tmp, s.Qwen = realDir(t), realDir(t), realDir(t)
	}
	p, cmd := startBridge(t, s.Config, append([]string{"--workspace", s.Project, "--agents", agents}, o.Args...)...)
	s.proc = p
	cmd.Env = append(cmd.Env, "TMPDIR="+s.Tmp, "QWEN_HOME="+s.Qwen)
	if o.Path != "" {
		cmd.Env = append(cmd.Env, "PATH="+o.Path+string(os.PathListSeparator)+filepath.Dir(claudeBin(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	cmd.Stdout = s.out
	keys, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.keys = keys
	p.run(t)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve's output:\n%s", s.out.String())
		}
	})
	return s
}

func (s *agentServe) bound(d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(s.ctx, d)
	s.t.Cleanup(cancel)
	return ctx
}

// discoveryFile waits for the one file matching pattern and returns its path.
func (s *agentServe) discoveryFile(pattern string) string {
	var path string
	waitUntil(s.bound(stepBound), s.t, pattern, func() bool {
		m, _ := filepath.Glob(pattern)
		if len(m) == 1 {
			path = m[0]
		}
		return path != ""
	})
	return path
}

// answer waits for the n-th question of serve's reviewer (from agent) and types key.
func (s *agentServe) answer(n int, agent, key string) {
	waitUntil(s.bound(stepBound), s.t, "serve's question", func() bool {
		return strings.Count(s.out.String(), "Accept this change?") >= n
	})
	if !strings.Contains(s.out.String(), agent+" proposes a change to") {
		s.t.Fatalf("serve does not say the diff is %s's:\n%s", agent, s.out.String())
	}
	io.WriteString(s.keys, key+"\n")
}

// selectHello writes hello.txt ("first line\nsecond line\n") in the project and makes its line 2
// the editor's selection, as a shell's `select` does: the context the model must be sent.
func (s *agentServe) selectHello() string {
	hello := filepath.Join(s.Project, "hello.txt")
	os.WriteFile(hello, []byte("first line\nsecond line\n"), 0o644)
	cmd := exec.Command(bridgeBin, "select", hello+":2-2")
	cmd.Dir = s.Project
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+s.Config, "HOME="+s.Config)
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("select: %v\n%s", err, out)
	}
	return hello
}

// prompt types text into the agent's TUI and presses Enter until the model is asked: under load
// the TUI may take the Enter as part of a paste.
func (s *agentServe) prompt(c *cli, api *fakeagents.Server, text string) {
	s.t.Helper()
	before := len(api.Requests())
	c.Type(text)
	ctx := s.bound(stepBound)
	for len(api.Requests()) == before {
		probe, cancel := context.WithTimeout(ctx, 3*time.Second)
		err := waitFor(probe, func() bool { return len(api.Requests()) > before })
		cancel()
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			s.t.Fatalf("%q never reached the model", text)
		}
		c.send("\r")
	}
}

// geminiEnv is the whole environment of a Gemini CLI against api, IDE mode on, finding s's
// discovery files (its $TMPDIR): a private home with the settings it needs offline, and no CI
// (with CI=true the CLI refuses to start interactively).
func (s *agentServe) geminiEnv(api *fakeagents.Server) []string {
	home := realDir(s.t)
	return append(append([]string{"HOME=" + home, "TMPDIR=" + s.Tmp, "PATH=" + os.Getenv("PATH"),
		"TERM=xterm-256color", "LANG=C.UTF-8"}, api.GeminiHome(s.t, home)...), fakeagents.QuietEnv...)
}

// qwenEnv is geminiEnv for Qwen Code: its settings in s's $QWEN_HOME (where its locks are).
func (s *agentServe) qwenEnv(api *fakeagents.Server) []string {
	return append(append([]string{"HOME=" + realDir(s.t), "TMPDIR=" + s.Tmp, "PATH=" + os.Getenv("PATH"),
		"TERM=xterm-256color", "LANG=C.UTF-8"}, api.QwenHome(s.t, s.Qwen)...), fakeagents.QuietEnv...)
}

// acceptWrite is the first question's turn: the model has the agent write text to path (the
// prompt asks), serve's question naming the agent is answered y, the agent writes the file and
// the turn ends with done.
func (s *agentServe) acceptWrite(c *cli, api *fakeagents.Server, prompt, agent, path, text, done string) {
	s.t.Helper()
	api.Push(fakeagents.Call{Name: "write_file", Args: map[string]any{"file_path": path, "content": text}}, done)
	s.prompt(c, api, prompt)
	s.answer(1, agent, "y")
	waitFile(s.bound(stepBound), s.t, path, text)
	c.WaitText(s.bound(stepBound), done)
}

func waitFile(ctx context.Context, t *testing.T, path, want string) {
	t.Helper()
	waitUntil(ctx, t, path+" to hold the accepted text", func() bool { return readFileOr(path) == want })
}

func TestGeminiThroughServe(t *testing.T) {
	t.Parallel()
	bin := agentBin(t, "GEMINI_BIN")
	s := startAgentServe(t, "gemini", agentServeOptions{})
	s.discoveryFile(filepath.Join(s.Tmp, "gemini", "ide", "gemini-ide-server-*.json"))
	hello := s.selectHello()

	api := fakeagents.Gemini()
	t.Cleanup(api.Close)
	cmd := exec.Command(bin, "--approval-mode", "default")
	cmd.Dir = s.Project
	cmd.Env = s.geminiEnv(api)
	c := runInPTY(t, cmd, api.Dump)
	// Connected, and told the editor's context ("1 open file" in the footer).
	c.WaitText(s.bound(connectBound), "1 open file")

	// Accept in serve: the CLI writes the text it is sent.
	s.acceptWrite(c, api, "change hello", "Gemini", hello, "changed by gemini\n", "GEMINI TURN ONE DONE")
	// The model was sent the editor's context: the selected file and line.
	if reqs := api.Requests(); len(reqs) == 0 || !strings.Contains(reqs[0], "editor context") ||
		!strings.Contains(reqs[0], "hello.txt") || !strings.Contains(reqs[0], "second line") {
		t.Fatalf("the model's first request has no editor context:\n%s", api.Dump())
	}

	// Reject in serve: the file stays, the CLI says the request was cancelled.
	api.Push(fakeagents.Call{Name: "write_file", Args: map[string]any{"file_path": hello, "content": "rejected text\n"}}, "GEMINI TURN TWO DONE")
	s.prompt(c, api, "change it again")
	s.answer(2, "Gemini", "n")
	c.WaitText(s.bound(stepBound), "Request cancelled")
	if got := readFileOr(hello); got != "changed by gemini\n" {
		t.Fatalf("after a reject the file holds %q", got)
	}

	// Answered in Gemini's own terminal first: the CLI closes the diff (closeDiff), serve's
	// question is withdrawn, and the CLI writes the text the bridge answered.
	api.Push(fakeagents.Call{Name: "write_file", Args: map[string]any{"file_path": hello, "content": "allowed in gemini\n"}}, "GEMINI TURN THREE DONE")
	s.prompt(c, api, "change it in the terminal")
	waitUntil(s.bound(stepBound), t, "serve's third question", func() bool {
		return strings.Count(s.out.String(), "Accept this change?") >= 3
	})
	c.Choose(s.bound(stepBound), "Allow once", "1")
	waitFile(s.bound(stepBound), t, hello, "allowed in gemini\n")
	c.WaitText(s.bound(stepBound), "GEMINI TURN THREE DONE")
	waitUntil(s.bound(stepBound), t, "serve's question withdrawn", func() bool {
		return strings.Contains(s.out.String(), "(accepted in Gemini's terminal: Gemini wrote "+hello+")")
	})
}

func TestQwenThroughServe(t *testing.T) {
	t.Parallel()
	bin := agentBin(t, "QWEN_BIN")
	s := startAgentServe(t, "qwen", agentServeOptions{})
	lock := s.discoveryFile(filepath.Join(s.Qwen, "ide", "*.lock"))
	port := strings.TrimSuffix(filepath.Base(lock), ".lock")
	s.selectHello()

	api := fakeagents.OpenAI()
	t.Cleanup(api.Close)
	cmd := exec.Command(bin, "--approval-mode", "default")
	cmd.Dir = s.Project
	cmd.Env = append(s.qwenEnv(api), "QWEN_CODE_IDE_SERVER_PORT="+port)
	c := runInPTY(t, cmd, api.Dump)
	c.WaitText(s.bound(connectBound), "Type your message")
	c.Type("/ide status")
	c.WaitText(s.bound(stepBound), "Connected to")

	// Qwen writes an existing file only after reading it in the session: new files here.
	one := filepath.Join(s.Project, "one.txt")
	api.Push(fakeagents.Call{Name: "write_file", Args: map[string]any{"file_path": one, "content": "written by qwen\n"}}, "QWEN TURN ONE DONE")
	s.prompt(c, api, "make one")
	s.answer(1, "Qwen", "y")
	waitFile(s.bound(stepBound), t, one, "written by qwen\n")
	if !strings.Contains(s.out.String(), "accepted: Qwen writes "+one) {
		t.Fatalf("serve's confirmation does not name Qwen:\n%s", s.out.String())
	}
	c.WaitText(s.bound(stepBound), "QWEN TURN ONE DONE")
	if reqs := api.Requests(); len(reqs) == 0 || !strings.Contains(reqs[0], "hello.txt") || !strings.Contains(reqs[0], "second line") {
		t.Fatalf("the model's first request has no editor context:\n%s", api.Dump())
	}

	two := filepath.Join(s.Project, "two.txt")
	api.Push(fakeagents.Call{Name: "write_file", Args: map[string]any{"file_path": two, "content": "rejected\n"}}, "QWEN TURN TWO DONE")
	s.prompt(c, api, "make two")
	s.answer(2, "Qwen", "n")
	// Qwen marks the cancelled call with "-" (an accepted one "✓") and ends the turn: the model is
	// not asked again.
	c.WaitText(s.bound(stepBound), "- WriteFile Writing to two.txt")
	if _, err := os.Stat(two); err == nil {
		t.Fatal("after a reject the file was written")
	}
	if n := len(api.Requests()); n != 3 {
		t.Fatalf("after the reject the model was sent %d requests, want 3 (the turn cancelled):\n%s", n, api.Dump())
	}
}
