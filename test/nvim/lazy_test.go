package nvimtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lazyTarball is the pinned lazy.nvim, in ../shared/peers relative to the repository root, or
// in $PEERS_DIR (for a checkout elsewhere, e.g. a git worktree).
const lazyTarball = "lazy.nvim-306a055.tar.gz"

// startLazyNvim runs Neovim with an init.lua that loads lazy.nvim (unpacked from lazyTarball)
// with only the given plugin spec (Lua), and no network: nothing to clone, no update checker,
// no luarocks. The bridge is on $PATH (the spec gives no `bin`).
func startLazyNvim(t *testing.T, spec string) (*nvim, string) {
	t.Helper()
	return startLazyNvimPath(t, spec, filepath.Dir(bridgeBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// startLazyNvimPath is startLazyNvim with $PATH set to path (without the bridge's folder: a
// user before :ClaudeCodeInstall).
func startLazyNvimPath(t *testing.T, spec, path string) (*nvim, string) {
	t.Helper()
	peers := os.Getenv("PEERS_DIR")
	if peers == "" {
		peers = filepath.Join(pluginDir, "..", "shared", "peers")
	}
	tarball := filepath.Join(peers, lazyTarball)
	if _, err := os.Stat(tarball); err != nil {
		t.Skipf("SKIPPED: lazy.nvim is not at %s (%v); the one-line install is not tested", tarball, err)
	}
	if out, err := exec.Command(nvimBin, "--headless", "--clean", "-u", "NONE", "-c", `lua io.stdout:write(vim.fn.has("nvim-0.8"))`, "-c", "qa!").Output(); err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Skipf("SKIPPED: lazy.nvim needs Neovim 0.8 or newer (%q, %v)", out, err)
	}
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	if out, err := exec.Command("tar", "-xzf", tarball, "-C", root).CombinedOutput(); err != nil {
		t.Fatalf("unpacking lazy.nvim: %v %s", err, out)
	}
	proj, cfg := filepath.Join(root, "proj"), filepath.Join(root, "cfg")
	for _, d := range []string{proj, cfg, filepath.Join(root, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	init := filepath.Join(root, "init.lua")
	code := `vim.opt.rtp:prepend(` + luaString(filepath.Join(root, "lazy.nvim")) + `)
require("lazy").setup({ ` + spec + ` }, {
  root = ` + luaString(filepath.Join(root, "plugins")) + `,
  lockfile = ` + luaString(filepath.Join(root, "lazy-lock.json")) + `,
  install = { missing = false },
  checker = { enabled = false },
  change_detection = { enabled = false },
  rocks = { enabled = false },
  pkg = { enabled = false },
})
`
	if err := os.WriteFile(init, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	sockDir, err := os.MkdirTemp("", "nvt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	helper := filepath.Join(sockDir, "helper.lua")
	if err := os.WriteFile(helper, []byte(helperLua), 0o644); err != nil {
		t.Fatal(err)
	}
	n := &nvim{sock: filepath.Join(sockDir, "s"), done: make(chan struct{})}
	n.cmd = exec.Command(nvimBin, "--headless", "-u", init, "-i", "NONE", "-n", "--listen", n.sock, "--cmd", "luafile "+helper)
	n.cmd.Dir = proj
	n.cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+cfg, "HOME="+filepath.Join(root, "home"),
		"XDG_DATA_HOME="+filepath.Join(root, "data"), "XDG_STATE_HOME="+filepath.Join(root, "state"),
		"XDG_CACHE_HOME="+filepath.Join(root, "cache"), "XDG_CONFIG_HOME="+filepath.Join(root, "config"),
		"PATH="+path)
	n.run(t, func() {
		n.tryLua(`require("claude-ide-bridge").stop()`)
		poll(func() bool {
			names, _ := filepath.Glob(filepath.Join(cfg, "ide", "*.lock"))
			return len(names) == 0
		})
	}, func() {})
	return n, cfg
}

func luaString(s string) string { return "[==[" + s + "]==]" }

// Issue 17: `{ dir = <checkout>, opts = {} }` is all lazy.nvim needs: it calls setup(opts), the
// bridge starts and writes its lock file, and :checkhealth reports no error.
func TestLazyOneLine(t *testing.T) {
	n, cfg := startLazyNvim(t, `{ dir = `+luaString(pluginDir)+`, opts = {} }`)
	_, lock := readLock(t, cfg)
	if lock.IdeName != "Neovim (proj)" {
		t.Fatalf("ideName %q", lock.IdeName)
	}
	n.waitLua(t, `true`, `return require("claude-ide-bridge").status().running`)
	n.ex(t, "checkhealth claude-ide-bridge")
	text := n.str(t, `return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")`)
	if strings.Contains(text, "ERROR") || !strings.Contains(text, "bridge running on port") {
		t.Fatalf("checkhealth:\n%s", text)
	}
}

// Lazy-loaded by cmd and keys: nothing runs until the command (or key) is used; then lazy
// loads the plugin, calls setup(opts) and the command runs.
func TestLazyLoadByCmd(t *testing.T) {
	n, cfg := startLazyNvim(t, `{ dir = `+luaString(pluginDir)+`, opts = {}, cmd = { "ClaudeCode", "ClaudeCodeStart", "ClaudeCodeStatus" },
		keys = { { "<leader>ac", "<cmd>ClaudeCode<cr>", desc = "Toggle Claude" } } }`)
	if got := string(n.lua(t, `return package.loaded["claude-ide-bridge"] ~= nil`)); got != "false" {
		t.Fatal("the plugin was loaded before its command was used")
	}
	if names, _ := filepath.Glob(filepath.Join(cfg, "ide", "*.lock")); len(names) != 0 {
		t.Fatalf("a bridge started before the plugin was loaded: %v", names)
	}
	n.ex(t, "ClaudeCodeStart")
	readLock(t, cfg)
	n.waitLua(t, `true`, `return require("claude-ide-bridge").status().running`)
}
