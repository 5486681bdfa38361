package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// The bridge's default version is every plugin's: :checkhealth compares them, and the plugins'
// installers download the release of their own version. One Go literal (main.version) against
// the Lua, Vim, Emacs (header and constant) and Nova ones.
func TestVersionMatchesPlugins(t *testing.T) {
	for _, lit := range []struct{ file, re string }{
		{"lua/claude-ide-bridge/version.lua", `(?m)^return "([^"]+)"$`},
		{"editors/vim/autoload/claude_ide_bridge/install.vim", `(?m)^export const VERSION = '([^']+)'$`},
		{"editors/emacs/claude-ide-bridge.el", `(?m)^;; Version: (\S+)$`},
		{"editors/emacs/claude-ide-bridge.el", `(?m)^\(defconst claude-ide-bridge-version "([^"]+)"`},
		{"editors/nova/ClaudeIDEBridge.novaextension/extension.json", `(?m)^  "version": "([^"]+)",$`},
	} {
		b, err := os.ReadFile(filepath.Join("..", "..", lit.file))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(lit.re).FindSubmatch(b)
		if m == nil || string(m[1]) != version {
			t.Errorf("%s: version %q, want main.version %q (%s)", lit.file, m, version, lit.re)
		}
	}
}

// A build stamped with another version says it everywhere the editor sees one: `version` and
// initialize's result (the MCP servers' serverInfo: internal/bridge TestServerInfoVersion).
func TestStampedVersion(t *testing.T) {
	t.Parallel()
	stamped := filepath.Join(t.TempDir(), "claude-ide-bridge")
	if out, err := exec.Command("go", "build", "-ldflags", "-X main.version=9.8.7-test", "-o", stamped, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if out, err := exec.Command(stamped, "version").Output(); err != nil || string(out) != "claude-ide-bridge 9.8.7-test\n" {
		t.Errorf("version: %q %v", out, err)
	}
	h := newHome(t)
	cmd := exec.CommandContext(testbin.Ctx(t), stamped, "serve", "--stdio", "--outlive", "0")
	cmd.Env = h.env()
	in, line, err := stdioInit(t, cmd, h.ws)
	defer cmd.Wait()
	defer in.Close()
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Result struct{ Version string }
	}
	if json.Unmarshal([]byte(line), &res); res.Result.Version != "9.8.7-test" {
		t.Errorf("initialize: %s", strings.TrimSpace(line))
	}
}
