//go:build unix

package emacstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeagents"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// Issue 38 item 4: `C-u M-x claude-ide-bridge-agent RET gemini RET --approval-mode default RET`
// starts the real Gemini CLI ($GEMINI_BIN) in Emacs's terminal with the command line the bridge
// composes (claudeCommand with agent: the program found on $PATH, the user's args,
// GEMINI_CLI_IDE_SERVER_PORT); it connects to this bridge, a second call shows its buffer, its
// write_file proposal is an Ediff session here, C-c C-c accepts and the CLI writes the file.
func TestAgentGeminiInEmacs(t *testing.T) {
	t.Parallel()
	a, api := startAgentEmacs(t, "gemini")
	hello := a.w.file(t, "hello.txt", "first line\n")
	a.w.visit(t, hello)
	api.Push(fakeagents.Call{Name: "write_file", Args: map[string]any{"file_path": hello, "content": "from gemini\n"}}, "TURN ONE DONE")
	a.prompt(t, "change hello", func() int { return len(api.Requests()) })
	a.acceptAndWait(t, hello, "from gemini\n", "[Gemini] ", api.Dump)
	e := a.w.e
	// clientConnected names the agent: Emacs never says "Claude connected" for Gemini.
	if m := e.str(t, `(with-current-buffer "*Messages*" (buffer-string))`); !strings.Contains(m, "Gemini connected") || strings.Contains(m, "Claude connected") {
		t.Fatalf("*Messages* does not say Gemini connected:\n%s", m)
	}
	// M-x claude-ide-bridge-status names it too: the bridge's clientsLine, not "1 Claude client".
	e.eval(t, `(claude-ide-bridge-status)`)
	if m := e.str(t, `(with-current-buffer "*Messages*" (buffer-string))`); !strings.Contains(m, ", 1 client (Gemini), ") {
		t.Errorf("claude-ide-bridge-status did not say 1 client (Gemini):\n%s", m)
	}
	if !harness.Poll(testbin.Bound, func() bool {
		return e.str(t, `(with-current-buffer (get-file-buffer `+lispQuote(hello)+`) (buffer-string))`) == "from gemini\n"
	}) {
		t.Fatal("hello.txt's buffer does not show the CLI's write")
	}
	// Emacs quits with a Claude outside it connected too: the bridge stays for that Claude
	// (Gemini in Emacs's terminal ends with Emacs; it is not a client outside).
	a.w.stopBridges(t)
	a.w.dial(t)
	var pid int
	e.value(t, &pid, `(process-id (jsonrpc--process claude-ide-bridge--conn))`)
	e.try(`(run-at-time 0 nil #'kill-emacs)`)
	if !harness.Poll(testbin.Bound, func() bool { return exec.Command(e.tmux, "-S", e.tsock, "has-session").Run() != nil }) {
		t.Fatalf("Emacs did not quit:\n%s", e.screen(t))
	}
	time.Sleep(3 * time.Second) // past the 2 s after which Emacs deletes a bridge that does not stay
	if lock, lpid := a.w.lockPID(t); lpid != pid {
		t.Fatalf("lock %q names pid %d, want the staying bridge's %d", lock, lpid, pid)
	}
	if locks, err := discovery.ListLocks([]string{filepath.Join(a.w.cfg, "ide")}); err != nil || len(locks) != 1 || locks[0].Live() != nil {
		t.Fatalf("the bridge did not stay for the Claude outside Emacs: %v %+v", err, locks)
	}
}

// claude-ide-bridge-agent qwen: the same with the real Qwen Code ($QWEN_BIN) against a fake
// OpenAI API, QWEN_CODE_IDE_SERVER_PORT from the bridge. A new file: Qwen writes an existing one
// only after reading it in the session.
func TestAgentQwenInEmacs(t *testing.T) {
	t.Parallel()
	a, api := startAgentEmacs(t, "qwen")
	one := filepath.Join(a.w.proj, "one.txt")
	api.Push(fakeagents.Call{Name: "write_file", Args: map[string]any{"file_path": one, "content": "written by qwen\n"}}, "QWEN TURN ONE DONE")
	a.prompt(t, "make one", func() int { return len(api.Requests()) })
	a.acceptAndWait(t, one, "written by qwen\n", "[Qwen] ", api.Dump)
}

// agentEmacs is an Emacs (with the bridge) whose claude-ide-bridge-agent runs a real agent CLI.
type agentEmacs struct {
	w     *world
	agent string
}

// startAgentEmacs starts the agent's fake model API and Emacs in a new project with the agent's
// program ($NAME_BIN) as `name` on $PATH and the agent's settings in a home of its own, starts
// the agent with the keys a user types and waits until the CLI is the bridge's client.
func startAgentEmacs(t *testing.T, name string) (*agentEmacs, *fakeagents.Server) {
	t.Helper()
	bin := harness.AgentBin(t, strings.ToUpper(name)+"_BIN", "claude-ide-bridge-agent "+name+" in Emacs")
	api, setEnv := fakeagents.Start(t, name)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	proj, cfg, home, tmp, ahome, pathDir := filepath.Join(root, "proj"), filepath.Join(root, "cfg"), filepath.Join(root, "home"),
		filepath.Join(root, "tmp"), filepath.Join(root, "ahome"), filepath.Join(root, "bin")
	for _, d := range []string{proj, cfg, home, tmp, ahome, pathDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The bridge looks the program up by its name, as a user's $PATH has it.
	prog := filepath.Join(pathDir, name)
	if err := os.Symlink(bin, prog); err != nil {
		t.Fatal(err)
	}
	env := append([]string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + cfg, "TMPDIR=" + tmp,
		"PATH=" + pathDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"REMOTE_CONTAINERS=true", "NO_BROWSER=1", "no_proxy=127.0.0.1,localhost", "NO_PROXY=127.0.0.1,localhost",
		// A CI runner's CI=true makes the Gemini CLI refuse to start interactively ("No input
		// provided via stdin", exit 42) even in a terminal; a user's terminal has no CI.
		"CI=false"}, setEnv(ahome)...)
	e := startEmacs(t, proj, env, `(setq claude-ide-bridge-terminal 'term)`)
	a := &agentEmacs{w: &world{proj: proj, cfg: cfg, e: e}, agent: name}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s's terminal:\n%s", name, a.screen(t))
		}
		// The agent first, so it does not outlive the test.
		e.try(`(dolist (c claude-ide-bridge--terminals) (when (get-buffer-process (cdr c)) (delete-process (get-buffer-process (cdr c)))))`)
	})
	e.keys(t, "C-u", "M-x")
	e.keys(t, "claude-ide-bridge-agent", "Enter")
	e.keys(t, name, "Enter")
	e.tm(t, "send-keys", "-t", "0", "-l", "--", "--approval-mode default")
	e.keys(t, "Enter")
	// The CLI connects once its start-up ends: up to a minute and more on a loaded machine.
	if !harness.Poll(180*time.Second, func() bool {
		c, _ := e.try(connectedExpr)
		return c == "1" && strings.Contains(a.screen(t), "Type your message")
	}) {
		t.Fatalf("%s did not connect and get ready", name)
	}
	// The program the bridge found on $PATH, the user's words after it (term runs it through sh).
	var cmd []string
	e.value(t, &cmd, `(vconcat (process-command (get-buffer-process (cdr (assoc `+lispQuote(name)+` claude-ide-bridge--terminals)))))`)
	if len(cmd) < 3 || strings.Join(cmd[len(cmd)-3:], " ") != prog+" --approval-mode default" {
		t.Fatalf("%s ran as %q", name, cmd)
	}
	// A second call shows the running agent instead of starting another.
	e.eval(t, `(progn (claude-ide-bridge-agent `+lispQuote(name)+`) nil)`)
	if n := e.eval(t, `(length (seq-filter (lambda (p) (member `+lispQuote(prog)+` (process-command p))) (process-list)))`); n != "1" {
		t.Fatalf("%s %s processes after a second claude-ide-bridge-agent, want 1", n, name)
	}
	if got := e.eval(t, `(buffer-name (window-buffer))`); got != `"*`+name+`*"` {
		t.Fatalf("the second call shows %s, want the agent's buffer", got)
	}
	return a, api
}

// screen is the text of the agent's terminal buffer.
func (a *agentEmacs) screen(t *testing.T) string {
	var s string
	a.w.e.value(t, &s, `(let ((b (cdr (assoc `+lispQuote(a.agent)+` claude-ide-bridge--terminals))))
	  (if (buffer-live-p b) (with-current-buffer b (buffer-substring-no-properties (point-min) (point-max))) "(no terminal)"))`)
	return s
}

// send types text into the agent's terminal.
func (a *agentEmacs) send(t *testing.T, text string) {
	a.w.e.eval(t, `(process-send-string (get-buffer-process (cdr (assoc `+lispQuote(a.agent)+` claude-ide-bridge--terminals))) `+lispQuote(text)+`)`)
}

// prompt types text and Enter until the model has a new request (requests counts them).
func (a *agentEmacs) prompt(t *testing.T, text string, requests func() int) {
	t.Helper()
	harness.Prompt(t, func(keys string) { a.send(t, keys) }, text, requests)
}

// acceptAndWait waits for the proposal's Ediff session (its tab starting with prefix), accepts
// it with C-c C-c in the proposal's window and waits for the CLI to write want to path.
func (a *agentEmacs) acceptAndWait(t *testing.T, path, want, prefix string, dump func() string) {
	t.Helper()
	e := a.w.e
	var tabs []string
	if !harness.Poll(120*time.Second, func() bool {
		tabs = nil
		e.value(t, &tabs, `(vconcat (mapcar #'car (claude-ide-bridge-diffs)))`)
		return len(tabs) == 1
	}) {
		t.Fatalf("no diff shown; model requests:\n%s", dump())
	}
	if !strings.HasPrefix(tabs[0], prefix) {
		t.Fatalf("the diff %q is not %q's", tabs[0], prefix)
	}
	if got := harness.FileText(path); got == want {
		t.Fatal("the file was written before the accept")
	}
	e.eval(t, `(progn (select-window (get-buffer-window (claude-ide-bridge--diff-proposal (car (hash-table-values claude-ide-bridge--diffs))))) nil)`)
	e.keys(t, "C-c", "C-c")
	if !harness.Poll(120*time.Second, func() bool { return harness.FileText(path) == want }) {
		t.Fatalf("the CLI did not write the accepted text; file %q", harness.FileText(path))
	}
	e.waitEval(t, "0", `(length (claude-ide-bridge-diffs))`)
}

// One terminal per agent: claude and gemini started side by side each get their own buffer and
// process, gemini with the bridge's argv (the user's args) and its companion's port (the one its
// discovery file names, not Claude's), and calling one again shows its buffer.
func TestAgentTerminals(t *testing.T) {
	t.Parallel()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	proj, cfg, home, tmp, pathDir := filepath.Join(root, "proj"), filepath.Join(root, "cfg"), filepath.Join(root, "home"),
		filepath.Join(root, "tmp"), filepath.Join(root, "bin")
	for _, d := range []string{proj, cfg, home, tmp, pathDir} {
		os.MkdirAll(d, 0o700)
	}
	claudeOut, geminiOut := filepath.Join(root, "claude.out"), filepath.Join(root, "gemini.out")
	gemini := filepath.Join(pathDir, "gemini")
	os.WriteFile(gemini, []byte(`#!/bin/sh
{ for a in "$@"; do echo "arg=$a"; done; echo "port=$GEMINI_CLI_IDE_SERVER_PORT"; echo "claude=$CLAUDE_CODE_SSE_PORT"
} > `+termtext.ShellQuote(geminiOut)+`.tmp && mv `+termtext.ShellQuote(geminiOut)+`.tmp `+termtext.ShellQuote(geminiOut)+`
exec sleep 60
`), 0o755)
	e := startEmacs(t, proj, []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + cfg, "TMPDIR=" + tmp,
		"PATH=" + pathDir + string(os.PathListSeparator) + os.Getenv("PATH")},
		`(setq claude-ide-bridge-terminal 'term claude-ide-bridge-claude-program `+lispQuote(fakeClaude(t, claudeOut))+`)`)
	t.Cleanup(func() {
		e.try(`(dolist (c claude-ide-bridge--terminals) (when (get-buffer-process (cdr c)) (delete-process (get-buffer-process (cdr c)))))`)
	})
	e.eval(t, `(progn (claude-ide-bridge-claude) (claude-ide-bridge-agent "gemini" '("--x" "a b")) nil)`)
	if !harness.Poll(testbin.Bound, func() bool { return fileExists(claudeOut) && fileExists(geminiOut) }) {
		t.Fatalf("claude or gemini did not start; screen:\n%s", e.screen(t))
	}
	names, _ := filepath.Glob(filepath.Join(tmp, "gemini", "ide", "gemini-ide-server-*-*.json"))
	if len(names) != 1 {
		t.Fatalf("Gemini discovery files %v", names)
	}
	port := strings.TrimSuffix(names[0][strings.LastIndex(names[0], "-")+1:], ".json")
	if got, want := harness.FileText(geminiOut), "arg=--x\narg=a b\nport="+port+"\nclaude=\n"; got != want {
		t.Fatalf("gemini ran with\n%s\nwant\n%s", got, want)
	}
	e.waitEval(t, `("*claude*" "*gemini*")`, `(sort (mapcar (lambda (c) (buffer-name (cdr c))) claude-ide-bridge--terminals) #'string<)`)
	for _, name := range []string{"claude", "gemini", "claude"} {
		e.eval(t, `(progn (claude-ide-bridge-agent `+lispQuote(name)+`) nil)`)
		if got := e.eval(t, `(buffer-name (window-buffer))`); got != `"*`+name+`*"` {
			t.Fatalf("calling %s again shows %s", name, got)
		}
	}
	if n := e.eval(t, `(length (seq-filter (lambda (p) (seq-some (lambda (w) (string-match-p "/\\(claude\\|gemini\\)\\'" w)) (process-command p))) (process-list)))`); n != "2" {
		t.Fatalf("%s agent processes, want claude's and gemini's", n)
	}
}

// Issue 38's leftover: the mode line names the connected agents, not every client as Claude:
// Claude's count first (what a user of Claude alone sees is unchanged), then each other agent;
// a disconnect names the agent that went.
func TestModeLineNamesAgents(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", true)
	modeLine := func(want string) {
		t.Helper()
		if !harness.Poll(testbin.Bound, func() bool { return strings.Contains(w.e.screen(t), want) }) {
			t.Fatalf("the mode line does not show %s; screen:\n%s", want, w.e.screen(t))
		}
	}
	modeLine("Claude[1]")
	var pid int
	w.e.value(t, &pid, `(emacs-pid)`)
	cs, _ := harness.GeminiSession(t, os.TempDir(), pid)
	modeLine("Claude[1+Gemini]")
	w.c.Close()
	modeLine("Claude[0+Gemini]")
	cs.Close()
	modeLine("Claude[0]")
	if m := w.e.str(t, messages); !strings.Contains(m, "Claude disconnected (1 connected)") || !strings.Contains(m, "Gemini disconnected (0 connected)") {
		t.Fatalf("*Messages* does not name who disconnected:\n%s", m)
	}
}
