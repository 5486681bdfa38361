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

// hook runs the bridge's PermissionRequest hook as the CLI does and returns what it prints.
func (e *env) hook(t *testing.T, input map[string]any) <-chan string {
	t.Helper()
	port, _ := readLock(t, e.cfg)
	return harness.Hook(t, bridgeBin, e.cfg, port, input)
}

// Issue 37: Claude's permission prompt in a float that keeps the focus where it was, naming the
// tool and the command escaped; a User ClaudeCodePermission event and status().permissions;
// :ClaudeCodePermissions enters it; its keys decide (a: allow always, r: deny with a reason);
// a withdrawn prompt goes away.
func TestPermissionPrompt(t *testing.T) {
	e := newEnv(t, map[string]any{"model_tools": false}, false)
	e.n.lua(t, `vim.g.perm_events = 0
		vim.api.nvim_create_autocmd("User", { pattern = "ClaudeCodePermission", callback = function() vim.g.perm_events = vim.g.perm_events + 1 end })`)
	win := e.n.str(t, `return tostring(vim.api.nvim_get_current_win())`)
	out := e.hook(t, harness.Bash("session-abcdef", "touch x\x1b[2J; echo"))
	e.n.waitLua(t, `1`, `return require("claude-ide-bridge").status().permissions`)
	e.n.waitLua(t, `1`, `return vim.g.perm_events`)
	if got := e.n.str(t, `return tostring(vim.api.nvim_get_current_win())`); got != win {
		t.Errorf("the prompt took the focus: window %s, was %s", got, win)
	}
	text := e.n.str(t, `for _, w in ipairs(vim.api.nvim_list_wins()) do
		if vim.api.nvim_win_get_config(w).relative ~= "" then
			local l = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), "\n")
			if l:find("asks to use") then return l end
		end
	end
	return ""`)
	if !strings.Contains(text, `asks to use Bash`) || !strings.Contains(text, `command: touch x\x1b[2J; echo`) || strings.Contains(text, "\x1b") {
		t.Fatalf("the prompt shows %q", text)
	}
	e.n.ex(t, "ClaudeCodePermissions")
	e.n.input(t, "a")
	if got := <-out; !strings.Contains(got, `"behavior":"allow"`) || !strings.Contains(got, `"updatedPermissions":[{"type":"addRules"}]`) {
		t.Fatalf("the hook printed %q", got)
	}
	e.n.waitLua(t, `0`, `return require("claude-ide-bridge").status().permissions`)

	out = e.hook(t, harness.Bash("session-2", "make"))
	e.n.waitLua(t, `1`, `return require("claude-ide-bridge").status().permissions`)
	e.n.lua(t, `vim.ui.input = function(_, cb) cb("use make test") end`)
	e.n.ex(t, "ClaudeCodePermissions")
	e.n.input(t, "r")
	if got := <-out; !strings.Contains(got, `"behavior":"deny"`) || !strings.Contains(got, `"message":"use make test"`) {
		t.Fatalf("the hook printed %q", got)
	}

	// Withdrawn (the session ended): the prompt goes, the hook prints nothing.
	out = e.hook(t, harness.Bash("session-3", "ls"))
	e.n.waitLua(t, `1`, `return require("claude-ide-bridge").status().permissions`)
	<-e.hook(t, map[string]any{"hook_event_name": "SessionEnd", "session_id": "session-3"})
	e.n.waitLua(t, `0`, `return require("claude-ide-bridge").status().permissions`)
	if got := <-out; got != "" {
		t.Fatalf("a withdrawn prompt's hook printed %q", got)
	}
}

// permissions = false: the capability is not declared, the terminal alone asks.
func TestPermissionsOff(t *testing.T) {
	e := newEnv(t, map[string]any{"model_tools": false, "permissions": false}, false)
	if got := <-e.hook(t, harness.Bash("s", "ls")); got != "" {
		t.Fatalf("the hook printed %q", got)
	}
	e.n.waitLua(t, `0`, `return require("claude-ide-bridge").status().permissions`)
}

// permissions = { tools = { "Bash" } }: a WebFetch question is not shown here (its hook falls
// through at once), a Bash one is.
func TestPermissionsPerTool(t *testing.T) {
	e := newEnv(t, map[string]any{"model_tools": false, "permissions": map[string]any{"tools": []string{"Bash"}}}, false)
	fetch := map[string]any{"hook_event_name": "PermissionRequest", "session_id": "s", "tool_name": "WebFetch",
		"tool_input": map[string]any{"url": "https://example.com"}}
	select {
	case got := <-e.hook(t, fetch):
		if got != "" {
			t.Fatalf("WebFetch: the hook printed %q", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("WebFetch's question waited for Neovim")
	}
	out := e.hook(t, harness.Bash("s", "ls"))
	e.n.waitLua(t, `1`, `return require("claude-ide-bridge").status().permissions`)
	if got := e.n.str(t, `return require("claude-ide-bridge.permission").list()[1].tool`); got != "Bash" {
		t.Fatalf("pending: %s", got)
	}
	e.n.ex(t, "ClaudeCodePermissions")
	e.n.input(t, "n")
	if got := <-out; !strings.Contains(got, `"behavior":"deny"`) {
		t.Fatalf("Bash: the hook printed %q", got)
	}
}

// Issue 37 with the real CLI in Neovim's terminal (--permission-mode default, a Bash command
// that writes a file): the question shows here; y in the float allows it (the file exists);
// r with a reason denies it (no file, the model gets the reason); Esc in Claude's terminal
// first withdraws the float within a second and writes nothing.
func TestRealClaudePermission(t *testing.T) {
	rc := startRealClaude(t, []string{"--permission-mode", "default"}, nil)
	n := rc.n
	pending := func() int {
		var c int
		n.luaInto(t, &c, `return require("claude-ide-bridge").status().permissions`)
		return c
	}
	answerInFloat := func(keys string) {
		n.input(t, `<C-\><C-n>`)
		n.ex(t, "ClaudeCodePermissions")
		n.input(t, keys)
	}
	turn := func(file, done, prompt string) {
		rc.api.Push(fakeapi.Tool("Bash", map[string]any{"command": "touch " + file, "description": "make a file"}), fakeapi.Text(done))
		rc.prompt(t, prompt)
		if !harness.Poll(60*time.Second, func() bool { return pending() == 1 }) {
			t.Fatalf("no permission question in Neovim; screen:\n%s", rc.screen())
		}
	}
	a := filepath.Join(rc.proj, "allowed.txt")
	turn(a, "TURN A DONE", "make a file")
	answerInFloat("y")
	if !harness.Poll(60*time.Second, func() bool { return strings.Contains(rc.screen(), "TURN A DONE") }) {
		t.Fatalf("turn A did not end; screen:\n%s", rc.screen())
	}
	if _, err := os.Stat(a); err != nil {
		t.Fatalf("allowed in Neovim, the command did not run: %v", err)
	}

	b := filepath.Join(rc.proj, "denied.txt")
	n.lua(t, `vim.ui.input = function(_, cb) cb("REASON-9 not here") end`)
	n.ex(t, "startinsert") // back in Claude's terminal for the prompt
	turn(b, "TURN B DONE", "make another")
	answerInFloat("r")
	if !harness.Poll(60*time.Second, func() bool { return strings.Contains(rc.screen(), "TURN B DONE") }) {
		t.Fatalf("turn B did not end; screen:\n%s", rc.screen())
	}
	if _, err := os.Stat(b); err == nil {
		t.Fatal("denied in Neovim, the command ran")
	}
	reqs := rc.api.MainRequests()
	if tr := reqs[len(reqs)-1].ToolResults(); len(tr) != 1 || !tr[0].IsError || !strings.Contains(tr[0].Content, "REASON-9 not here") {
		t.Fatalf("the model got %+v, want the reason as the tool's error", tr)
	}

	c := filepath.Join(rc.proj, "terminal.txt")
	n.ex(t, "startinsert")
	turn(c, "TURN C DONE", "and another")
	if !harness.Poll(30*time.Second, func() bool { return strings.Contains(rc.screen(), "Do you want to proceed?") }) {
		t.Fatalf("no question in Claude's terminal; screen:\n%s", rc.screen())
	}
	n.lua(t, `vim.fn.chansend(vim.b[require("claude-ide-bridge.terminal").buf()].terminal_job_id, "\27")`)
	// Timed from the CLI's menu closing (its answer), as test/e2e does: how fast the CLI
	// itself takes the key is not the bridge's.
	if !harness.Poll(30*time.Second, func() bool { return !strings.Contains(rc.screen(), "Do you want to proceed?") }) {
		t.Fatalf("Esc did not close Claude's question; screen:\n%s", rc.screen())
	}
	harness.Withdrawn(t, "Neovim", func() bool { return pending() == 0 }, c)

	// Issue 39 item 7: "Yes" (Enter) in Claude's terminal does not cancel the hook; the float
	// stayed over Claude's terminal for 5 minutes. The tool's PostToolUse withdraws it.
	dfile := filepath.Join(rc.proj, "yes.txt")
	n.ex(t, "startinsert")
	rc.prompt(t, "go on") // plays turn C's text, left over by the interrupt
	if !harness.Poll(60*time.Second, func() bool { return strings.Contains(rc.screen(), "TURN C DONE") }) {
		t.Fatalf("turn C's text did not come; screen:\n%s", rc.screen())
	}
	turn(dfile, "TURN D DONE", "one more")
	if !harness.Poll(30*time.Second, func() bool { return strings.Contains(rc.screen(), "Do you want to proceed?") }) {
		t.Fatalf("no question in Claude's terminal; screen:\n%s", rc.screen())
	}
	// Enter until the menu takes it (a key that comes as the menu is drawn may be lost).
	for i := 0; i < 5 && strings.Contains(rc.screen(), "Do you want to proceed?"); i++ {
		n.lua(t, `vim.fn.chansend(vim.b[require("claude-ide-bridge.terminal").buf()].terminal_job_id, "\r")`)
		harness.Poll(2*time.Second, func() bool { return !strings.Contains(rc.screen(), "Do you want to proceed?") })
	}
	if !harness.Poll(60*time.Second, func() bool { return strings.Contains(rc.screen(), "TURN D DONE") }) {
		t.Fatalf("turn D did not end; screen:\n%s", rc.screen())
	}
	if _, err := os.Stat(dfile); err != nil {
		t.Fatalf("allowed in Claude's terminal, the command did not run: %v", err)
	}
	if !harness.Poll(5*time.Second, func() bool { return pending() == 0 }) {
		t.Fatal("the question answered Yes in Claude's terminal stayed in Neovim")
	}
}
