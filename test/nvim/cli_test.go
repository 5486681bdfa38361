package nvimtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// The whole way: :ClaudeCode runs the real Claude Code CLI in Neovim's
// terminal; it connects through the environment the plugin gives it, sees
// the selection, and its Edit becomes a diff that :w accepts. The CLI, not
// the plugin, writes the file.
// realClaude is Neovim with the plugin running the real Claude Code CLI in
// its terminal, against a fake model API, in the project proj.
type realClaude struct {
	n      *nvim
	api    *fakeapi.Server
	proj   string
	cfg    string // CLAUDE_CONFIG_DIR, where the lock and the MCP config are
	screen func() string
}

// startRealClaude starts it all with the CLI's arguments args (e.g. a permission mode),
// calls before (files to open) and waits until the CLI is connected and ready.
func startRealClaude(t *testing.T, args []string, before func(n *nvim, proj string)) *realClaude {
	t.Helper()
	w := harness.NewCLIWorld(t, "the Neovim plugin's test with the real Claude Code CLI")
	bin, api, proj, cfg := w.Bin, w.API, w.Proj, w.Cfg
	n := startNvim(t, proj, w.Env("LANG=C.UTF-8")...)
	e := &env{proj: proj, cfg: cfg, n: n}
	t.Cleanup(func() {
		// End claude first (bounded), then the bridge.
		n.tryLua(stopClaudeJob)
		e.stopBridge(t)
	})
	n.ex(t, "set columns=220 lines=50")
	// Every warning, and the wall-clock time (s) of every buffer read.
	n.lua(t, `_G.NVT_notes, _G.NVT_readat = {}, {}
		local orig = vim.notify
		vim.notify = function(msg, level, o)
			if (level or vim.log.levels.INFO) >= vim.log.levels.WARN then table.insert(_G.NVT_notes, msg) end
			return orig(msg, level, o)
		end
		vim.api.nvim_create_autocmd("BufReadPost", { callback = function(ev)
			local s, us = (vim.uv or vim.loop).gettimeofday()
			_G.NVT_readat[vim.api.nvim_buf_get_name(ev.buf)] = s + us / 1e6
		end })`)
	n.lua(t, `require("claude-ide-bridge").setup(...)`, map[string]any{
		"bin":          bridgeBin,
		"terminal_cmd": append([]string{bin}, args...),
		"terminal":     map[string]any{"size": 0.7},
	})
	n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
	if before != nil {
		before(n, proj)
	}
	n.ex(t, "ClaudeCode")
	rc := &realClaude{n: n, api: api, proj: proj, cfg: cfg}
	rc.screen = func() string { return claudeScreen(t, n) }
	// Facts: "With no network, expect up to ~20 s before it connects".
	if !harness.Poll(90*time.Second, func() bool {
		var c int
		n.luaInto(t, &c, `return require("claude-ide-bridge").state().clients`)
		// The footer when ready: "? for shortcuts", or the mode in others.
		scr := rc.screen()
		return c == 1 && (strings.Contains(scr, "? for shortcuts") || strings.Contains(scr, "accept edits on"))
	}) {
		t.Fatalf("the CLI did not connect and get ready; screen:\n%s\nstate: %s\nmessages: %s", rc.screen(),
			n.lua(t, `return vim.inspect(require("claude-ide-bridge").state())`), n.lua(t, `return vim.fn.execute("messages")`))
	}
	return rc
}

// prompt types text and Enter into the CLI's terminal.
func (rc *realClaude) prompt(t *testing.T, text string) { typePrompt(t, rc.n, text) }

// typePrompt types text and Enter into the CLI running in the plugin's terminal.
func typePrompt(t *testing.T, n *nvim, text string) {
	t.Helper()
	send := `vim.fn.chansend(vim.b[require("claude-ide-bridge.terminal").buf()].terminal_job_id, ...)`
	n.lua(t, send, text)
	time.Sleep(300 * time.Millisecond) // not an assertion: the TUI treats a burst ending in Enter as a paste
	n.lua(t, send, "\r")
}

// stopClaudeJob ends the job of the plugin's terminal, waiting for it at most 10 s.
const stopClaudeJob = `local b = require("claude-ide-bridge.terminal").buf()
	if not b then return 0 end
	local j = vim.b[b].terminal_job_id
	vim.fn.jobstop(j)
	return vim.fn.jobwait({j}, 10000)[1]`

// claudeScreen is the text of the plugin's terminal.
func claudeScreen(t *testing.T, n *nvim) string {
	return n.str(t, `local b = require("claude-ide-bridge.terminal").buf()
		return b and table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n") or ""`)
}

// selectWorld goes from Claude's terminal back to the file (its cursor on "hello world"),
// selects "world" and sends it with :ClaudeCode, as a user would; the CLI, whose terminal is
// screen, must show it. One selection must do: the bridge holds notifications until the CLI
// listens.
func selectWorld(t *testing.T, n *nvim, screen func() string) {
	t.Helper()
	n.input(t, `<C-\><C-n>`)
	n.waitLua(t, `"n"`, `return vim.api.nvim_get_mode().mode:sub(1, 1)`)
	n.ex(t, "wincmd p")
	n.input(t, "<Esc>0")
	n.waitLua(t, `""`, `return vim.json.decode(require("claude-ide-bridge.tracker").last_sent() or "{}").text`)
	n.input(t, "wve")
	n.waitLua(t, `"world"`, `return vim.json.decode(require("claude-ide-bridge.tracker").last_sent() or "{}").text`)
	n.ex(t, "ClaudeCode")
	if !harness.Poll(harness.CLIStep, func() bool { return strings.Contains(screen(), "1 line selected") }) {
		t.Fatalf("the CLI does not show the selection; screen:\n%s", screen())
	}
}

// acceptInEditor accepts the pending diff with :ClaudeCodeDiffAccept (the diff came while the
// user typed to Claude: it opened without the focus, issue 39 item 3; they answer from Claude's
// terminal) and waits until the CLI wrote path and finished its turn with EDIT ACCEPTED.
func acceptInEditor(t *testing.T, n *nvim, path string, screen func() string) {
	t.Helper()
	n.ex(t, "ClaudeCodeDiffAccept")
	if !harness.Poll(60*time.Second, func() bool { return harness.FileText(path) == "hello there\n" }) {
		t.Fatalf("the CLI did not write the accepted text; file %q; screen:\n%s", harness.FileText(path), screen())
	}
	if !harness.Poll(60*time.Second, func() bool { return strings.Contains(screen(), "EDIT ACCEPTED") }) {
		t.Fatalf("the turn did not finish; screen:\n%s", screen())
	}
}

// waitBufferFollows waits, sending no input, until path's buffer shows want,
// and checks that it was read again within 1 s of the file's last write
// (issue 14: "shows the new text within 1 s, with no input").
func (rc *realClaude) waitBufferFollows(t *testing.T, path, want string) {
	t.Helper()
	text := func() string {
		return rc.n.str(t, `local b = require("claude-ide-bridge.files").find(...)
			return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n")`, path)
	}
	if !poll(func() bool { return text() == want }) {
		t.Fatalf("buffer of %s shows %q after the CLI wrote %q", path, text(), harness.FileText(path))
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var at float64
	rc.n.luaInto(t, &at, `return _G.NVT_readat[...] or 0`, path)
	mtime := float64(fi.ModTime().UnixNano()) / 1e9
	if d := at - mtime; at == 0 || d > 1 {
		t.Errorf("buffer of %s reloaded %.3f s after the CLI's write, want within 1 s", path, d)
	}
}

// notes are the plugin's warnings so far that mention s.
func (rc *realClaude) notes(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	for _, m := range strings.Split(rc.n.str(t, `return table.concat(_G.NVT_notes, "\0")`), "\x00") {
		if strings.Contains(m, s) {
			out = append(out, m)
		}
	}
	return out
}

// The whole way: :ClaudeCode runs the real Claude Code CLI in Neovim's
// terminal; it connects through the environment the plugin gives it, sees
// the selection, and its Edit becomes a diff that :w accepts. The CLI, not
// the plugin, writes the file, and the file's buffer follows (issue 14).
func TestRealClaudeInTerminal(t *testing.T) {
	var path string
	// No permission flag: :ClaudeCode adds --permission-mode default (issue 26 item 1), else the
	// fresh config's auto mode would write the Edit with no diff.
	rc := startRealClaude(t, nil, func(n *nvim, proj string) {
		path = filepath.Join(proj, "hello.txt")
		if err := os.WriteFile(path, []byte("hello world\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		n.ex(t, "edit "+path)
	})
	n, api, screen := rc.n, rc.api, rc.screen

	// Back in the file, select "world", then type in the terminal again. The
	// CLI shows what it got before the user types, as a user would see. One
	// selection must do: the bridge holds notifications until the CLI listens.
	selectWorld(t, n, screen)

	api.Push(fakeapi.Edit(path, "world", "there", "EDIT ACCEPTED")...)
	rc.prompt(t, "edit hello")

	first := api.MustMain(t, 60*time.Second, 1, screen)
	// Facts: non-empty selection text reaches the model as "The user selected
	// the lines A to B from <path>".
	if !strings.Contains(first.Text(), "selected the lines 1 to 1 from "+path) {
		t.Errorf("the model was not told the selection:\n%s", first.LastUserText())
	}

	if !harness.Poll(60*time.Second, func() bool {
		var d int
		n.luaInto(t, &d, `return #require("claude-ide-bridge.diff").list()`)
		return d == 1
	}) {
		t.Fatalf("no diff shown; screen:\n%s", screen())
	}
	if got := harness.FileText(path); got != "hello world\n" {
		t.Fatalf("file changed before the accept: %q", got)
	}
	// Issue 26 item 3: while the Edit waits for the user, status() says so (the CLI's
	// PermissionRequest hook, through the --settings :ClaudeCode gave it).
	claudeState := func() string { return n.str(t, `return tostring(require("claude-ide-bridge").status().claude)`) }
	if !harness.Poll(30*time.Second, func() bool { return claudeState() == "waiting" }) {
		t.Errorf("status().claude %q while the diff is pending, want waiting", claudeState())
	}
	// The diff came while the user typed to Claude: it opened without the focus (issue 39
	// item 3); they answer from Claude's terminal.
	acceptInEditor(t, n, path, screen)
	n.waitLua(t, `0`, `return #require("claude-ide-bridge.diff").list()`)
	if !harness.Poll(30*time.Second, func() bool { return claudeState() == "idle" }) {
		t.Errorf("status().claude %q after the turn, want idle (the Stop hook)", claudeState())
	}
	// The buffer of hello.txt in the first tab shows the CLI's write.
	rc.waitBufferFollows(t, path, "hello there")
	if w := rc.notes(t, "hello.txt"); len(w) != 0 {
		t.Errorf("warnings about hello.txt: %q", w)
	}
}

// Issue 14: a file the CLI writes with no diff (acceptEdits mode: "openDiff
// ... for Edit/Write in the default permission mode (not in acceptEdits/auto)"
// says the facts) is followed by its unmodified buffer; a buffer with unsaved
// changes keeps them and the warning names the file.
func TestRealClaudeWritesWithoutDiff(t *testing.T) {
	var clean, dirty string
	rc := startRealClaude(t, []string{"--permission-mode", "acceptEdits"}, func(n *nvim, proj string) {
		clean, dirty = filepath.Join(proj, "clean.txt"), filepath.Join(proj, "dirty.txt")
		for _, p := range []string{clean, dirty} {
			if err := os.WriteFile(p, []byte("hello world\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		n.ex(t, "edit "+dirty)
		n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, -1, false, {"my unsaved text"})`)
		n.ex(t, "split "+clean)
	})
	rc.api.Push(
		fakeapi.Tool("Read", map[string]any{"file_path": clean}),
		fakeapi.Tool("Edit", map[string]any{"file_path": clean, "old_string": "world", "new_string": "there"}),
		fakeapi.Tool("Read", map[string]any{"file_path": dirty}),
		fakeapi.Tool("Edit", map[string]any{"file_path": dirty, "old_string": "world", "new_string": "there"}),
		fakeapi.Text("EDITS DONE"),
	)
	rc.prompt(t, "edit both")
	if !harness.Poll(90*time.Second, func() bool { return strings.Contains(rc.screen(), "EDITS DONE") }) {
		t.Fatalf("the turn did not finish; files %q %q; screen:\n%s", harness.FileText(clean), harness.FileText(dirty), rc.screen())
	}
	if got := harness.FileText(clean) + harness.FileText(dirty); got != "hello there\nhello there\n" {
		t.Fatalf("the CLI did not write both files: %q", got)
	}
	var diffs int
	rc.n.luaInto(t, &diffs, `return #require("claude-ide-bridge.diff").list()`)
	if diffs != 0 {
		t.Fatalf("%d diffs shown in acceptEdits mode", diffs)
	}
	rc.waitBufferFollows(t, clean, "hello there")
	if !poll(func() bool { return len(rc.notes(t, "dirty.txt")) > 0 }) {
		t.Fatal("no warning names dirty.txt")
	}
	if w := rc.notes(t, "dirty.txt"); len(w) != 1 || !strings.Contains(w[0], "unsaved changes") {
		t.Errorf("warnings about dirty.txt: %q, want one about its unsaved changes", w)
	}
	if got := rc.n.str(t, `local b = require("claude-ide-bridge.files").find(...)
		return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n")`, dirty); got != "my unsaved text" {
		t.Errorf("the modified buffer was overwritten: %q", got)
	}
	// Issue 39 item 4: the bridge saw the edits written without a diff and says so, once
	// (vim.notify), and :checkhealth no longer only claims diffs.
	skipped := "without showing a diff: its permission mode"
	if !poll(func() bool { return len(rc.notes(t, skipped)) > 0 }) {
		t.Fatal("no notice that the edits were written without a diff")
	}
	if w := rc.notes(t, skipped); len(w) != 1 || !strings.Contains(w[0], "Claude wrote clean.txt ") {
		t.Errorf("notices %q, want one naming clean.txt", w)
	}
	rc.n.ex(t, "checkhealth claude-ide-bridge")
	if h := rc.n.str(t, `return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")`); !strings.Contains(h, "Claude wrote clean.txt "+skipped) {
		t.Errorf("checkhealth does not say the edits skip diffs:\n%s", h)
	}
}
