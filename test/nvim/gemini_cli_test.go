package nvimtest

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeagents"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// The real Gemini CLI (0.61.0, $GEMINI_BIN from scripts/ensure-agent-clis) against a fake Gemini
// API, beside real Neovim: it finds the bridge Neovim started through the discovery file, its
// write_file proposals are Neovim diffs. :w with an edit → the CLI writes the buffer's text;
// :ClaudeCodeDiffDeny → the file unchanged, "Request cancelled"; answered in the CLI's terminal
// first → the CLI writes the diff buffer's text as it is then; the model is sent the editor's file.
func TestRealGeminiWithNeovim(t *testing.T) {
	bin := harness.AgentBin(t, "GEMINI_BIN", "the test with the real Gemini CLI")
	d := harness.Dirs(t, "proj", "cfg", "home", "tmp", "ghome")
	proj, cfg, home, tmp, ghome := d[0], d[1], d[2], d[3], d[4]
	hello := filepath.Join(proj, "hello.txt")
	os.WriteFile(hello, []byte("first line\nsecond line\n"), 0o644)
	n := startNvim(t, proj, "HOME="+home, "CLAUDE_CONFIG_DIR="+cfg, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "TMPDIR="+tmp)
	e := &env{proj: proj, cfg: cfg, n: n}
	t.Cleanup(func() { e.stopBridge(t) })
	n.lua(t, `require("claude-ide-bridge").setup(...)`, map[string]any{"bin": bridgeBin})
	n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
	n.ex(t, "edit "+hello)
	n.input(t, "2G0ve")
	n.waitLua(t, `"second"`, `return vim.json.decode(require("claude-ide-bridge.tracker").last_sent() or "{}").text`)
	n.input(t, "<Esc>")

	api := fakeagents.Gemini()
	t.Cleanup(api.Close)
	cmd := exec.Command(bin, "--approval-mode", "default")
	cmd.Dir = proj
	cmd.Env = append(append([]string{"HOME=" + ghome, "TMPDIR=" + tmp, "PATH=" + os.Getenv("PATH"),
		"TERM=xterm-256color", "LANG=C.UTF-8"}, api.GeminiHome(t, ghome)...), fakeagents.QuietEnv...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	out := &testbin.Buffer{}
	copied := make(chan struct{})
	go func() {
		io.Copy(out, tty)
		close(copied)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		tty.Close()
		<-copied
		if t.Failed() {
			t.Logf("gemini's output (raw, last 3000 bytes): %q", tail(out.String(), 3000))
			t.Logf("fake API requests:\n%s", api.Dump())
		}
	})
	// Connected: the companion session counts as a client of the bridge.
	n.waitLua(t, `1`, `return require("claude-ide-bridge").state().clients`)

	prompt := func(text string) {
		t.Helper()
		harness.Prompt(t, func(keys string) { tty.Write([]byte(keys)) }, text, func() int { return len(api.Requests()) })
	}
	diffShown := func() {
		t.Helper()
		n.waitLua(t, `1`, `return #require("claude-ide-bridge.diff").list()`)
	}
	edit := func(lines ...string) {
		t.Helper()
		n.lua(t, `local d = require("claude-ide-bridge.diff").list()[1]
			vim.api.nvim_buf_set_lines(vim.fn.bufnr("claude-ide-bridge://proposed/" .. d.tab_name), 0, -1, false, ...)`, lines)
	}

	// :w with an edit: the CLI writes the buffer's text.
	api.Push(fakeagents.Call{Name: "write_file", Args: map[string]any{"file_path": hello, "content": "from gemini\n"}}, "TURN ONE DONE")
	prompt("change hello")
	diffShown()
	edit("from gemini", "kept edit")
	n.ex(t, "write")
	waitFor(t, "the CLI to write the accepted text", func() bool { return harness.FileText(hello) == "from gemini\nkept edit\n" })
	n.waitLua(t, `0`, `return #require("claude-ide-bridge.diff").list()`)
	waitFor(t, "the turn's end", func() bool { return strings.Contains(out.String(), "TURN ONE DONE") })
	if r := api.Requests(); !strings.Contains(r[0], "editor context") || !strings.Contains(r[0], hello) {
		t.Fatalf("the model was not sent the editor's file:\n%s", api.Dump())
	}

	// Rejected in Neovim: the file stays, the CLI cancels.
	api.Push(fakeagents.Call{Name: "write_file", Args: map[string]any{"file_path": hello, "content": "rejected\n"}}, "TURN TWO DONE")
	prompt("change it again")
	diffShown()
	n.ex(t, "ClaudeCodeDiffDeny")
	waitFor(t, `"Request cancelled"`, func() bool { return strings.Contains(out.String(), "Request cancelled") })
	if got := harness.FileText(hello); got != "from gemini\nkept edit\n" {
		t.Fatalf("after a reject the file holds %q", got)
	}
	n.waitLua(t, `0`, `return #require("claude-ide-bridge.diff").list()`)

	// Answered in the CLI's terminal first: the diff closes in Neovim and the CLI writes the
	// proposal buffer's text as it was then.
	api.Push(fakeagents.Call{Name: "write_file", Args: map[string]any{"file_path": hello, "content": "third\n"}}, "TURN THREE DONE")
	prompt("and once more")
	diffShown()
	edit("third", "edited in Neovim")
	waitFor(t, "Gemini's own question", func() bool { return strings.Contains(out.String(), "Allow once") })
	for i := 0; ; i++ {
		tty.Write([]byte("1"))
		if harness.Poll(2*time.Second, func() bool { return harness.FileText(hello) == "third\nedited in Neovim\n" }) {
			break
		}
		if i == 10 {
			t.Fatalf("after answering in the CLI the file holds %q", harness.FileText(hello))
		}
	}
	n.waitLua(t, `0`, `return #require("claude-ide-bridge.diff").list()`)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
