package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/navtest"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// `mcp-config` finds the bridge serving the directory and prints its --mcp-config: the JSON
// (which connects), the 0600 file, and the `claude mcp add` equivalent; serve's banner gives
// the file too. No bridge there: exit 1 saying so.
func TestMCPConfigCommand(t *testing.T) {
	h := newHome(t)
	s := h.serve(t, nil, "--auto", "reject")
	file := filepath.Join(h.cfg, "ide", strconv.Itoa(s.port)+".mcp.json")
	if !strings.Contains(s.out.String(), "claude --permission-mode default --settings "+filepath.Join(h.cfg, "ide", strconv.Itoa(s.port)+".settings.json")+" --mcp-config "+file) {
		t.Errorf("the banner does not give the config file:\n%s", s.out.String())
	}
	sub := filepath.Join(h.ws, "sub")
	os.Mkdir(sub, 0o755)

	out, errOut, code := h.command(t, sub, "mcp-config", "--json")
	if code != 0 {
		t.Fatalf("status %d: %s", code, errOut)
	}
	var c discovery.MCPConfig
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	srv := c.MCPServers["ide-code"]
	if srv.Type != "http" || srv.URL != "http://127.0.0.1:"+strconv.Itoa(s.port)+"/mcp" {
		t.Fatalf("config %s", out)
	}
	sess := navtest.Connect(t, srv.URL, strings.TrimPrefix(srv.Headers["Authorization"], "Bearer "))
	tools, err := sess.ListTools(testbin.Ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, " "); !strings.Contains(got, "references") || !strings.Contains(got, "rename_preview") || len(names) != 8 {
		t.Errorf("tools %s", got)
	}

	out, _, code = h.command(t, h.ws, "mcp-config", "--path")
	if code != 0 || strings.TrimSpace(out) != file {
		t.Errorf("--path: %d %q, want %s", code, out, file)
	}
	out, _, code = h.command(t, h.ws, "mcp-config")
	for _, want := range []string{`"mcpServers"`, "claude --mcp-config " + file, "Not `claude mcp add`"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("status %d, output lacks %q:\n%s", code, want, out)
		}
	}
	// Issue 25 item 7: no advice that stores this port in claude's config: once the bridge is
	// gone another local user could listen there and get the model's tool calls.
	if strings.Contains(out, "claude mcp add --transport") {
		t.Errorf("mcp-config advises claude mcp add:\n%s", out)
	}
	out, _, code = h.command(t, h.ws, "mcp-config", "--port", strconv.Itoa(s.port), "--path")
	if code != 0 || strings.TrimSpace(out) != file {
		t.Errorf("--port: %d %q", code, out)
	}

	// A token others can read is refused, not printed.
	os.Chmod(file, 0o644)
	if _, errOut, code := h.command(t, h.ws, "mcp-config"); code != 1 || !strings.Contains(errOut, "may be read by others") {
		t.Errorf("0644 config: status %d, %q", code, errOut)
	}
	os.Chmod(file, 0o600)

	elsewhere := t.TempDir()
	if _, errOut, code := h.command(t, elsewhere, "mcp-config"); code != 1 || !strings.Contains(errOut, "no running IDE server serves") {
		t.Errorf("outside: status %d, %q", code, errOut)
	}
}

// serve with its own language-server client (serve --lsp .go=gopls, internal/lsp): the code
// tools at /mcp answer every check of testdata/nav exactly, through the real binary.
func TestServeCodeToolsGopls(t *testing.T) {
	gopls := harness.Gopls(t)
	h := newHome(t)
	navtest.Copy(t, h.ws)
	h.trust(t, h.ws)
	s := h.serve(t, nil, "--auto", "reject", "--lsp", ".go="+gopls)
	c, err := discovery.ReadMCPConfig(filepath.Join(h.cfg, "ide"), s.port)
	if err != nil {
		t.Fatal(err)
	}
	srv := c.MCPServers[discovery.MCPServerName]
	sess := navtest.Connect(t, srv.URL, strings.TrimPrefix(srv.Headers["Authorization"], "Bearer "))
	navtest.Run(t, func(name string, args map[string]any) (string, bool) { return navtest.Call(t, sess, name, args) })
}
