package nvimtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools/navtest"
)

// goplsPath finds gopls: $GOPLS (scripts/test), else on PATH or in $GOPATH/bin.
func goplsPath(t *testing.T) string {
	if p := os.Getenv("GOPLS"); p != "" { // scripts/test: scripts/ensure-language-servers
		return p
	}
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	out, _ := exec.Command("go", "env", "GOPATH").Output()
	p := filepath.Join(strings.TrimSpace(string(out)), "bin", "gopls")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("gopls not found (set GOPLS; scripts/ensure-language-servers installs gopls v0.23.0): %v", err)
	}
	return p
}

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
// config (vim.lsp.start on 0.8+), files loaded into hidden buffers when not open. Every tool
// gives exactly the places read off testdata/nav (navtest.Run).
func TestModelToolsFromNeovimLSP(t *testing.T) {
	e := newEnv(t, nil, false)
	navtest.Copy(t, e.proj)
	e.n.lua(t, attachGopls, goplsPath(t), e.proj)
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
	var listed bool
	e.n.luaInto(t, &listed, `local b = require("claude-ide-bridge.files").find(...) return b ~= nil and vim.bo[b].buflisted`, filepath.Join(e.proj, "use.go"))
	if listed {
		t.Error("the hidden buffer is listed")
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
	if !isErr || !strings.Contains(text, "no language server for "+p) || !strings.Contains(text, "no language server is attached to "+p+" in Neovim") {
		t.Errorf("got %v %q", isErr, text)
	}
}

// :ClaudeCode's command line carries --mcp-config with the bridge's config file (a list
// terminal_cmd gets two more items, a shell string the quoted pair), and the option
// model_tools = false leaves it out.
func TestClaudeCodeMCPConfigArgs(t *testing.T) {
	e := newEnv(t, nil, false)
	_, _, path := mcpConfig(t, e.cfg)
	var list []string
	e.n.luaInto(t, &list, `return require("claude-ide-bridge.mcp").with_config({"claude", "--x"}, require("claude-ide-bridge").state())`)
	navtest.Equal(t, "list", list, []string{"claude", "--x", "--mcp-config", path})
	var str string
	e.n.luaInto(t, &str, `return require("claude-ide-bridge.mcp").with_config("claude", require("claude-ide-bridge").state())`)
	if str != "claude '--mcp-config' '"+path+"'" {
		t.Errorf("string command: %q", str)
	}
	e.n.luaInto(t, &str, `require("claude-ide-bridge.config").options.model_tools = false
		return require("claude-ide-bridge.mcp").with_config("claude", require("claude-ide-bridge").state())`)
	if str != "claude" {
		t.Errorf("with model_tools = false: %q", str)
	}
}
