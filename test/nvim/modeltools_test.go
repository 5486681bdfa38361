package nvimtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/navtest"
)

// attachGopls makes Neovim start gopls for Go buffers of root, as a user's config would:
// vim.lsp.start where it exists (0.8+), else vim.lsp.start_client and buf_attach_client.
const attachGopls = `local gopls, root = ...
vim.cmd("filetype on")
vim.api.nvim_create_autocmd("FileType", { pattern = "go", callback = function(a)
  if vim.lsp.start then
    vim.lsp.start({ name = "gopls", cmd = { gopls }, root_dir = root }, { bufnr = a.buf })
  else
    _G.gopls_id = _G.gopls_id or vim.lsp.start_client({ name = "gopls", cmd = { gopls }, root_dir = root })
    vim.lsp.buf_attach_client(a.buf, _G.gopls_id)
  end
end })`

// mcpConfig reads the bridge's MCP config file next to its lock: the URL and token of /mcp.
func mcpConfig(t *testing.T, cfg string) (url, token string, path string) {
	t.Helper()
	port, _ := readLock(t, cfg)
	path = filepath.Join(cfg, "ide", itoa(port)+".mcp.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		MCPServers map[string]struct {
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	s := c.MCPServers["ide-code"]
	return s.URL, strings.TrimPrefix(s.Headers["Authorization"], "Bearer "), path
}

// The code tools answered by Neovim's own language server: gopls attached by the user's
// config (vim.lsp.start on 0.8+) to the file the user opened, and given the files the tools
// load into hidden buffers when not open. Every tool gives exactly the places read off
// testdata/nav (navtest.Run).
func TestModelToolsFromNeovimLSP(t *testing.T) {
	e := newEnv(t, nil, false)
	navtest.Copy(t, e.proj)
	e.n.lua(t, attachGopls, harness.Gopls(t), e.proj)
	e.n.lua(t, `vim.cmd("edit " .. vim.fn.fnameescape(...))`, filepath.Join(e.proj, "shapes.go"))
	// gopls is running (initialized) for the file the user opened, as in a session under way.
	e.n.waitLua(t, "true", `local c = (vim.lsp.get_clients or vim.lsp.get_active_clients)()[1] return c ~= nil and c.initialized ~= false`)
	url, token, _ := mcpConfig(t, e.cfg)
	s := navtest.Connect(t, url, token)

	// use.go is not open: the plugin loads it into a hidden buffer, and says so.
	text, isErr := navtest.Call(t, s, "references", map[string]any{"path": "use.go", "line": 5, "symbol": "Total"})
	if isErr {
		t.Fatalf("references: %s", text)
	}
	navtest.Equal(t, "references", navtest.Places(text), navtest.References)
	if !strings.Contains(text, "the editor loaded "+filepath.Join(e.proj, "use.go")+" into a hidden buffer") {
		t.Errorf("no word of the hidden buffer:\n%s", text)
	}
	var kept bool
	e.n.luaInto(t, &kept, `return require("claude-ide-bridge.files").find(...) ~= nil`, filepath.Join(e.proj, "use.go"))
	if kept {
		t.Error("the hidden buffer was kept after the answer")
	}
	var server string
	e.n.luaInto(t, &server, `local c = (vim.lsp.get_clients or vim.lsp.get_active_clients)()[1] return c and c.name or ""`)
	if server != "gopls" {
		t.Fatalf("Neovim has no gopls client (%q): the answers did not come from it", server)
	}

	navtest.Run(t, func(name string, args map[string]any) (string, bool) { return navtest.Call(t, s, name, args) })
}

// A file no Neovim language server serves (and no bridge server either, in --stdio without
// one): a tool error naming what is missing.
func TestModelToolsNoServer(t *testing.T) {
	e := newEnv(t, nil, false)
	p := e.file(t, "notes.txt", "hello world\n")
	url, token, _ := mcpConfig(t, e.cfg)
	s := navtest.Connect(t, url, token)
	text, isErr := navtest.Call(t, s, "definition", map[string]any{"path": "notes.txt", "line": 1, "symbol": "world"})
	if !isErr || !strings.Contains(text, "no language server for "+p) || !strings.Contains(text, "no language server of Neovim's serves "+p) {
		t.Errorf("got %v %q", isErr, text)
	}
}

// :ClaudeCode's command line carries --mcp-config with the bridge's config file, and the
// option model_tools = false leaves it out.
func TestClaudeCodeMCPConfigArgs(t *testing.T) {
	e := newEnv(t, map[string]any{"terminal_cmd": []string{"cat"}}, false) // a program on $PATH
	_, _, path := mcpConfig(t, e.cfg)
	argv := func() string {
		var c struct{ Argv []string }
		e.n.luaInto(t, &c, `return require("claude-ide-bridge").claude_command()`)
		return strings.Join(c.Argv, " ")
	}
	if got := argv(); !strings.Contains(got, " --mcp-config "+path) {
		t.Errorf("argv %q", got)
	}
	e.n.lua(t, `require("claude-ide-bridge.config").options.model_tools = false`)
	if got := argv(); strings.Contains(got, "--mcp-config") {
		t.Errorf("with model_tools = false: %q", got)
	}
}

// Issue 25 item 2: a file Neovim loads only for a tool (the model chose its path; it may be a
// cloned repository's) is read without autocommands or modelines and wiped after the answer.
// The user's BufRead/BufReadPost/FileType autocommands would leave a marker; the file's
// modeline would set its filetype, which the tool's answer names ('modeline' is on for it, as
// for any user but root).
func TestModelToolsLoadRunsNoAutocommandOrModeline(t *testing.T) {
	e := newEnv(t, nil, false)
	e.n.lua(t, `vim.go.modeline = true`)
	p := e.file(t, "notes.txt", "hello world\n# vim: set filetype=fromthemodeline :\n")
	marker := filepath.Join(t.TempDir(), "marker")
	e.n.lua(t, `local marker = ...
vim.cmd("filetype on")
for _, ev in ipairs({ "BufRead", "BufReadPost", "BufReadPre", "FileType", "BufEnter", "BufWinEnter", "BufUnload", "BufWipeout" }) do
  vim.api.nvim_create_autocmd(ev, { callback = function(a) vim.fn.writefile({ ev .. " " .. a.file }, marker, "a") end })
end`, marker)
	var before string
	e.n.luaInto(t, &before, `return vim.o.eventignore .. "|" .. tostring(vim.go.modeline)`)
	url, token, _ := mcpConfig(t, e.cfg)
	s := navtest.Connect(t, url, token)
	text, isErr := navtest.Call(t, s, "definition", map[string]any{"path": "notes.txt", "line": 1, "symbol": "world"})
	if !isErr || strings.Contains(text, "fromthemodeline") || !strings.Contains(text, `(filetype "text")`) {
		t.Errorf("got %v %q: want no server, for filetype text (not the modeline's)", isErr, text)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("autocommands ran for a file loaded for a tool:\n%s", b)
	}
	var kept bool
	e.n.luaInto(t, &kept, `return require("claude-ide-bridge.files").find(...) ~= nil`, p)
	if kept {
		t.Error("the buffer loaded for the tool was kept")
	}
	var ei string
	e.n.luaInto(t, &ei, `return vim.o.eventignore .. "|" .. tostring(vim.go.modeline)`)
	if ei != before {
		t.Errorf("eventignore|modeline after the call = %q, want them restored", ei)
	}
}

// :ClaudeCodeTrust records the folder in the bridge's trust store (the one serve and Nova read:
// `claude-ide-bridge trust --check` says so); :ClaudeCodeTrust! revokes it.
func TestClaudeCodeTrust(t *testing.T) {
	e := newEnv(t, nil, false)
	home := filepath.Join(filepath.Dir(e.proj), "home")
	check := func() bool {
		cmd := exec.Command(bridgeBin, "trust", "--check", e.proj)
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
		return cmd.Run() == nil
	}
	if check() {
		t.Fatal("trusted before :ClaudeCodeTrust")
	}
	e.n.ex(t, "ClaudeCodeTrust "+e.proj)
	if !check() {
		t.Fatal(":ClaudeCodeTrust did not trust the folder")
	}
	e.n.ex(t, "ClaudeCodeTrust! "+e.proj)
	if check() {
		t.Fatal(":ClaudeCodeTrust! did not revoke")
	}

	// A folder under a 1777 one (issue 35 item 4): the bridge refuses, records nothing, and the
	// notice is its reason, naming the shared folder and the command that accepts it.
	shared := filepath.Join(filepath.Dir(e.proj), "shared")
	ws := filepath.Join(shared, "ws")
	os.MkdirAll(ws, 0o755)
	os.Chmod(shared, os.ModeSticky|0o777)
	var got struct {
		OK  bool   `json:"ok"`
		Msg string `json:"msg"`
	}
	e.n.luaInto(t, &got, `local msgs, orig = {}, vim.notify
		vim.notify = function(m) msgs[#msgs + 1] = m end
		local ok = require("claude-ide-bridge.trust").run(...)
		vim.notify = orig
		return { ok = ok, msg = table.concat(msgs, "\n") }`, ws)
	for _, want := range []string{shared + " can be written by other users (mode 1777", "would run as you", "claude-ide-bridge trust --shared " + ws} {
		if got.OK || !strings.Contains(got.Msg, want) {
			t.Errorf(":ClaudeCodeTrust %s = %v, the notice lacks %q:\n%s", ws, got.OK, want, got.Msg)
		}
	}
	if strings.Contains(got.Msg, "starts language servers there from now on") {
		t.Errorf("the notice says servers start: %s", got.Msg)
	}
}
