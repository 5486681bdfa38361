package vimtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeagents"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// whereTerm is the current window's terminal (its buffer's name) or "file", and Vim's mode.
const whereTerm = `(&buftype == 'terminal' ? bufname() : 'file') .. ' ' .. mode()`

// Issue 38 item 4: :ClaudeCodeAgent gemini runs the bridge's claudeCommand answer for that agent
// in a Vim terminal of its own beside Claude's: the program the bridge found on $PATH, the user's
// args, GEMINI_CLI_IDE_SERVER_PORT naming the bridge's companion and nothing of Claude's. A second
// call shows and focuses the same terminal (one per agent), :ClaudeCodeClose gemini stops only it,
// the names complete, and the bridge's refusals (an unknown agent, one it does not serve) are
// shown as its text, nothing started. Every message shows control and bidi characters escaped.
func TestAgentTerminals(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	out := filepath.Join(dir, "out")
	if err := os.WriteFile(filepath.Join(dir, "gemini"), []byte("#!/bin/sh\n{ printf '%s\\n' \"$@\"; echo --; env; } > "+out+
		".tmp && mv "+out+".tmp "+out+"\nexec cat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	v := startVimEnv(t, []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")},
		"let g:claude_ide_bridge_terminal_cmd = ['sh', '-c', 'exec cat', 'sh']")
	v.waitEval("true", "claude_ide_bridge#State().ready")
	v.ex("ClaudeCode")
	v.waitEval(`"claude t"`, whereTerm)
	claude := v.str("string(bufnr())")

	v.ex("ClaudeCodeAgent gemini --approval-mode default")
	v.waitEval(`"gemini t"`, whereTerm)
	gemini := v.str("string(bufnr())")
	var got []byte
	if !poll(func() bool { got, _ = os.ReadFile(out); return len(got) > 0 }) {
		t.Fatalf("gemini did not run; messages:\n%s", v.messages())
	}
	args, env, _ := strings.Cut(string(got), "--\n")
	if args != "--approval-mode\ndefault\n" {
		t.Errorf("gemini's arguments %q", args)
	}
	if prog := v.str("job_info(term_getjob(" + gemini + ")).cmd[0]"); prog != filepath.Join(dir, "gemini") {
		t.Errorf("the terminal runs %q, not the program the bridge found", prog)
	}
	port := ""
	for _, l := range strings.Split(env, "\n") {
		if p, ok := strings.CutPrefix(l, "GEMINI_CLI_IDE_SERVER_PORT="); ok {
			port = p
		}
		if strings.HasPrefix(l, "CLAUDE_CODE_SSE_PORT=") {
			t.Errorf("gemini's environment has Claude's %s", l)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(v.home), "gemini", "ide", "gemini-ide-server-*-"+port+".json")); port == "" || len(m) != 1 {
		t.Errorf("GEMINI_CLI_IDE_SERVER_PORT=%q names no companion of this bridge", port)
	}

	// From Claude's window, and with gemini's window hidden: the same terminal, shown and focused.
	v.keys("C-w", "p")
	v.waitEval(`"claude t"`, whereTerm)
	v.ex("ClaudeCodeAgent gemini")
	v.waitEval(gemini, "bufnr()")
	v.ex("wincmd p | only")
	v.ex("ClaudeCodeAgent gemini --resume")
	v.waitEval(gemini, "bufnr()")
	v.waitEval("2", "winnr('$')")
	if msgs := v.messages(); !strings.Contains(msgs, "gemini is already running") {
		t.Errorf("no warning that gemini runs without --resume:\n%s", msgs)
	}
	v.waitEval("[2, 1, 1]", "[len(term_list()), term_getstatus("+claude+") =~ 'running', term_getstatus("+gemini+") =~ 'running']")
	// State() tells a statusline every agent's terminal, not only Claude's.
	v.waitEval(`[true, ["claude", "gemini"]]`, "[claude_ide_bridge#State().terminal, claude_ide_bridge#State().terminals]")

	v.ex("ClaudeCodeClose gemini")
	v.waitEval("[0, 1]", "[bufexists("+gemini+"), term_getstatus("+claude+") =~ 'running']")
	v.waitEval(`[true, ["claude"]]`, "[claude_ide_bridge#State().terminal, claude_ide_bridge#State().terminals]")
	v.waitEval(`["gemini", "qwen"]`, "getcompletion('ClaudeCodeAgent ', 'cmdline')")
	v.waitEval(`["qwen"]`, "getcompletion('ClaudeCodeAgent q', 'cmdline')")
	v.waitEval(`[]`, "getcompletion('ClaudeCodeAgent gemini ', 'cmdline')")

	v.ex("ClaudeCodeAgent codex")
	if !poll(func() bool {
		return strings.Contains(v.messages(), `codex's command line: unknown agent "codex": claude, gemini or qwen`)
	}) {
		t.Errorf("the bridge's refusal was not shown:\n%s", v.messages())
	}
	v.waitEval("1", "len(term_list())")
	v.ex("ClaudeCodeClose")
	v.waitEval(`[false, []]`, "[claude_ide_bridge#State().terminal, claude_ide_bridge#State().terminals]")

	// Vim's echo shows ESC as ^[ and U+202E as <202e> itself, but U+061C (a bidi mark) as it is.
	if msgs := v.str(`execute('call claude_ide_bridge#Notify("x\e]0;pwned\x07 \u202e\u061cy")')`); !strings.Contains(msgs, `x\x1b]0;pwned\x07 \u{202e}\u{061c}y`) || strings.ContainsAny(msgs, "\x1b\x07\u202e\u061c") {
		t.Errorf("a message with control and bidi characters is shown as\n%q", msgs)
	}

	w := startVim(t, "let g:claude_ide_bridge_bridge_args = ['--agents', 'none']")
	w.waitEval("true", "claude_ide_bridge#State().ready")
	w.ex("ClaudeCodeAgent gemini")
	if !poll(func() bool {
		return strings.Contains(w.messages(), "gemini's command line: this bridge does not serve Gemini CLI (serve --agents leaves it out; docs/gemini.md)")
	}) {
		t.Errorf("the bridge's refusal was not shown:\n%s", w.messages())
	}
	w.waitEval("[0, 1]", "[len(term_list()), winnr('$')]")
}

// :ClaudeCodeAgent gemini --approval-mode default starts the real Gemini CLI ($GEMINI_BIN) in
// Vim's terminal with the command line the bridge composes: it connects to this bridge, its
// write_file proposal is a Vim diff labelled Gemini's, and :w in it makes the CLI write the file.
func TestClaudeCodeAgentGeminiInVim(t *testing.T) {
	v, api := startAgentVim(t, "gemini")
	hello := v.file("hello.txt", "first line\n")
	api.Push(fakeagents.Call{Name: "write_file", Args: map[string]any{"file_path": hello, "content": "from gemini\n"}}, "TURN ONE DONE")
	acceptAgentDiff(t, v, "gemini", api, "change hello", hello, "from gemini\n", "TURN ONE DONE")
}

// :ClaudeCodeAgent qwen: the same with real Qwen Code ($QWEN_BIN) against a fake OpenAI API,
// QWEN_CODE_IDE_SERVER_PORT from the bridge. A new file: Qwen writes an existing one only after
// reading it in the session.
func TestClaudeCodeAgentQwenInVim(t *testing.T) {
	v, api := startAgentVim(t, "qwen")
	one := filepath.Join(v.ws, "one.txt")
	api.Push(fakeagents.Call{Name: "write_file", Args: map[string]any{"file_path": one, "content": "written by qwen\n"}}, "QWEN TURN ONE DONE")
	acceptAgentDiff(t, v, "qwen", api, "make one", one, "written by qwen\n", "QWEN TURN ONE DONE")
}

// startAgentVim starts the agent's fake model API and Vim with the agent's program ($NAME_BIN)
// as name on $PATH and the agent's settings in a home of its own, runs
// :ClaudeCodeAgent name --approval-mode default, and waits until the CLI is the bridge's client,
// ready for a prompt in its terminal, which has the focus. It returns Vim and the fake API.
func startAgentVim(t *testing.T, name string) (*vim, *fakeagents.Server) {
	t.Helper()
	bin := harness.AgentBin(t, strings.ToUpper(name)+"_BIN", ":ClaudeCodeAgent "+name+" in Vim")
	api, setEnv := fakeagents.Start(t, name)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	pathDir := filepath.Join(dir, "bin")
	os.Mkdir(pathDir, 0o700)
	// The bridge looks the program up by its name, as a user's $PATH has it.
	if err := os.Symlink(bin, filepath.Join(pathDir, name)); err != nil {
		t.Fatal(err)
	}
	env := append([]string{"PATH=" + pathDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		// A CI runner's CI=true makes the Gemini CLI refuse to start interactively ("No input
		// provided via stdin", exit 42) even in Vim's terminal; a user's terminal has no CI.
		"CI=false", "REMOTE_CONTAINERS=true", "NO_BROWSER=1", "no_proxy=127.0.0.1,localhost", "NO_PROXY=127.0.0.1,localhost"},
		setEnv(filepath.Join(dir, "home"))...)
	v := startVimEnv(t, env, "let g:claude_ide_bridge_split = 'botright'", "let g:claude_ide_bridge_size = 0.6")
	v.waitEval("true", "claude_ide_bridge#State().ready")
	v.ex("ClaudeCodeAgent " + name + " --approval-mode default")
	t.Cleanup(func() { v.tryEval("execute('ClaudeCodeClose " + name + "')") })
	// Qwen connects once its start-up ends, which can take half a minute.
	if !harness.Poll(90*time.Second, func() bool {
		return v.state().Clients == 1 && strings.Contains(v.screen(), "Type your message")
	}) {
		t.Fatalf("%s did not connect and get ready; screen:\n%s\nmessages:\n%s", name, v.screen(), v.messages())
	}
	// State() counts it as the bridge does (clientConnected's agents), not as a Claude.
	if a := v.state().Agents; a[name] != 1 || len(a) != 1 {
		t.Errorf("State().agents = %v, want %s alone", a, name)
	}
	v.waitEval(`"`+name+` t"`, whereTerm)
	return v, api
}

// acceptAgentDiff types prompt to the agent (its answer pushed to api), waits for the proposal's
// diff, goes to it as a user does (CTRL-W gt: it left the keys in the agent's terminal) and
// accepts it with :w, then waits for the CLI to write want to path and end its turn with done.
func acceptAgentDiff(t *testing.T, v *vim, name string, api *fakeagents.Server, prompt, path, want, done string) {
	t.Helper()
	before := harness.FileText(path)
	harness.Prompt(t, func(keys string) {
		if keys == "\r" {
			v.keys("Enter")
		} else {
			v.typeText(keys)
		}
	}, prompt, func() int { return len(api.Requests()) })
	if !harness.Poll(60*time.Second, func() bool { return len(v.state().Diffs) == 1 }) {
		t.Fatalf("no diff shown; screen:\n%s\nmodel requests:\n%s", v.screen(), api.Dump())
	}
	if got := harness.FileText(path); got != before {
		t.Fatalf("the file changed before the accept: %q", got)
	}
	v.waitEval(`"`+name+` t"`, whereTerm)
	v.keys("C-w")
	v.typeText("gt")
	v.waitEval(`"acwrite"`, "&buftype")
	title := map[string]string{"gemini": "Gemini", "qwen": "Qwen"}[name]
	if sl := v.str("&l:statusline"); !strings.Contains(sl, filepath.Base(path)+" ("+title+"'s proposal%m)") {
		t.Errorf("the proposal's status line %q does not name %s", sl, title)
	}
	v.normal()
	v.typeText(":w")
	v.keys("Enter")
	if !harness.Poll(60*time.Second, func() bool { return harness.FileText(path) == want }) {
		t.Fatalf("the CLI did not write the accepted text; file %q; screen:\n%s", harness.FileText(path), v.screen())
	}
	v.waitDiffs()
	// Back in the agent's terminal, in Terminal-Normal mode (Vim draws the job's output again after i).
	v.waitEval(`"`+name+` n"`, whereTerm)
	v.keys("i")
	if !harness.Poll(60*time.Second, func() bool { return strings.Contains(v.screen(), done) }) {
		t.Errorf("the turn did not finish; screen:\n%s\nmodel requests:\n%s", v.screen(), api.Dump())
	}
}
