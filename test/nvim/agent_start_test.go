package nvimtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeagents"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// :ClaudeCodeAgent gemini starts the real Gemini CLI ($GEMINI_BIN) in Neovim's terminal with the
// command line the bridge composes (claudeCommand with agent: the program found on $PATH, the
// user's args, GEMINI_CLI_IDE_SERVER_PORT): it connects to this bridge, its write_file proposal
// is a Neovim diff, and :w makes the CLI write the file.
func TestClaudeCodeAgentGemini(t *testing.T) {
	a, api := startAgentNvim(t, "gemini")
	hello := filepath.Join(a.proj, "hello.txt")
	os.WriteFile(hello, []byte("first line\n"), 0o644)
	api.Push(fakeagents.Call{Name: "write_file", Args: map[string]any{"file_path": hello, "content": "from gemini\n"}}, "TURN ONE DONE")
	a.prompt(t, "change hello", func() int { return len(api.Requests()) })
	a.acceptAndWait(t, hello, "from gemini\n", api.Dump)
}

// :ClaudeCodeAgent qwen: the same with the real Qwen Code ($QWEN_BIN) against a fake OpenAI API,
// QWEN_CODE_IDE_SERVER_PORT from the bridge. A new file: Qwen writes an existing one only after
// reading it in the session.
func TestClaudeCodeAgentQwen(t *testing.T) {
	a, api := startAgentNvim(t, "qwen")
	one := filepath.Join(a.proj, "one.txt")
	api.Push(fakeagents.Call{Name: "write_file", Args: map[string]any{"file_path": one, "content": "written by qwen\n"}}, "QWEN TURN ONE DONE")
	a.prompt(t, "make one", func() int { return len(api.Requests()) })
	a.acceptAndWait(t, one, "written by qwen\n", api.Dump)
}

// agentNvim is a Neovim (with the bridge) whose :ClaudeCodeAgent runs a real agent CLI.
type agentNvim struct {
	n     *nvim
	proj  string
	agent string
}

// startAgentNvim starts the agent's fake model API and Neovim in a new project with the agent's
// program ($NAME_BIN) as `name` on $PATH and the agent's settings in a home of its own, runs
// `:ClaudeCodeAgent name --approval-mode default` and waits until the CLI is the bridge's client.
func startAgentNvim(t *testing.T, name string) (*agentNvim, *fakeagents.Server) {
	t.Helper()
	bin := harness.AgentBin(t, strings.ToUpper(name)+"_BIN", "the test of :ClaudeCodeAgent "+name)
	api, setEnv := fakeagents.Start(t, name)
	d := harness.Dirs(t, "proj", "cfg", "home", "tmp", "ahome", "bin")
	proj, cfg, home, tmp, ahome, pathDir := d[0], d[1], d[2], d[3], d[4], d[5]
	// The bridge looks the program up by its name, as a user's $PATH has it.
	if err := os.Symlink(bin, filepath.Join(pathDir, name)); err != nil {
		t.Fatal(err)
	}
	vars := append([]string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + cfg, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "TMPDIR=" + tmp,
		"PATH=" + pathDir + string(os.PathListSeparator) + os.Getenv("PATH"), "LANG=C.UTF-8",
		// A CI runner's CI=true makes the Gemini CLI refuse to start interactively ("No input
		// provided via stdin", exit 42) even in Neovim's pty; a user's terminal has no CI.
		"CI=false"}, append(setEnv(ahome), fakeagents.QuietEnv...)...)
	n := startNvim(t, proj, vars...)
	e := &env{proj: proj, cfg: cfg, n: n}
	a := &agentNvim{n: n, proj: proj, agent: name}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s's terminal:\n%s", name, a.screen(t))
		}
		// The agent's processes, taken before its terminal is stopped: the CLI relaunches itself
		// as a child, which, orphaned, is no longer Neovim's and wrote into the agent's home
		// while t.TempDir removed it ("directory not empty"). They are waited for here.
		kids := descendants(n.cmd.Process.Pid)
		n.lua(t, `for _, s in ipairs(require("claude-ide-bridge.terminal").sessions()) do pcall(vim.fn.jobstop, s.job or -1) end`)
		e.stopBridge(t)
		waitGone(t, kids)
	})
	n.lua(t, `vim.o.columns, vim.o.lines = 200, 60
		require("claude-ide-bridge").setup(...)`, map[string]any{"bin": bridgeBin, "terminal": map[string]any{"split": "botright", "size": 0.6}})
	n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
	n.ex(t, "ClaudeCodeAgent "+name+" --approval-mode default")
	// Qwen connects once its start-up ends, which can take longer than waitLua's bound.
	harness.Poll(60*time.Second, func() bool { return strings.Contains(a.screen(t), "Type your message") })
	n.waitLua(t, `1`, `return require("claude-ide-bridge").state().clients`)
	return a, api
}

// screen is the text of the agent's terminal.
func (a *agentNvim) screen(t *testing.T) string {
	return a.n.str(t, `for _, s in ipairs(require("claude-ide-bridge.terminal").sessions()) do
		if s.key == "agent:" .. ... then return table.concat(vim.api.nvim_buf_get_lines(s.buf, 0, -1, false), "\n") end
	end
	return "(no terminal)"`, a.agent)
}

// send types text into the agent's terminal.
func (a *agentNvim) send(t *testing.T, text string) {
	a.n.lua(t, `local name, text = ...
	for _, s in ipairs(require("claude-ide-bridge.terminal").sessions()) do
		if s.key == "agent:" .. name then vim.fn.chansend(vim.bo[s.buf].channel, text) end
	end`, a.agent, text)
}

// prompt types text and Enter until the model has a new request (requests counts them).
func (a *agentNvim) prompt(t *testing.T, text string, requests func() int) {
	t.Helper()
	harness.Prompt(t, func(keys string) { a.send(t, keys) }, text, requests)
}

// acceptAndWait waits for the proposal's diff, accepts it with :w and waits for the CLI to
// write want to path.
func (a *agentNvim) acceptAndWait(t *testing.T, path, want string, dump func() string) {
	t.Helper()
	a.n.waitLua(t, `1`, `return #require("claude-ide-bridge.diff").list()`)
	// The proposal's window, wherever the terminal left the focus.
	a.n.lua(t, `local d = require("claude-ide-bridge.diff").list()[1]
		local b = vim.fn.bufnr("claude-ide-bridge://proposed/" .. d.tab_name)
		vim.cmd("stopinsert")
		vim.api.nvim_set_current_win(vim.fn.win_findbuf(b)[1])`)
	a.n.ex(t, "write")
	waitFor(t, "the CLI to write the accepted text", func() bool { return harness.FileText(path) == want })
	a.n.waitLua(t, `0`, `return #require("claude-ide-bridge.diff").list()`)
	if strings.Contains(a.screen(t), "(no terminal)") {
		t.Fatalf("no %s terminal; model requests:\n%s", a.agent, dump())
	}
}
