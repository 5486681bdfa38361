package nvimtest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/dist"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

type installResult struct {
	Path string `json:"path"`
	Err  string `json:"err"`
}

// :ClaudeCodeInstall downloads the release for this OS/arch and the plugin's version, checks
// it against SHA256SUMS and installs it under stdpath("data"); the plugin then finds it (no
// `bin`, nothing on $PATH) and the bridge it starts writes its lock file. An archive whose
// checksum does not match installs nothing (and is not replaced by a build from source).
func TestInstall(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unpacks with tar and runs a shell")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		if _, err := exec.LookPath("wget"); err != nil {
			t.Skip("neither curl nor wget")
		}
	}
	version := harness.PluginVersion(t, pluginDir)
	for _, corrupt := range []bool{false, true} {
		name := "good"
		if corrupt {
			name = "bad checksum"
		}
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			cfg, data := filepath.Join(root, "cfg"), filepath.Join(root, "data")
			srv := harness.ReleaseServer(t, bridgeBin, version, corrupt)
			n := startNvim(t, root, "CLAUDE_CONFIG_DIR="+cfg, "XDG_DATA_HOME="+data)
			n.lua(t, `require("claude-ide-bridge").setup(...)`, map[string]any{
				"auto_start": false, "install": map[string]any{"base_url": srv.URL},
			})
			want := filepath.Join(data, "nvim", "claude-ide-bridge", "bin", "claude-ide-bridge")
			if got := n.str(t, `return require("claude-ide-bridge.install").path()`); got != want {
				t.Fatalf("install path %q, want %q", got, want)
			}
			if got := string(n.lua(t, `return require("claude-ide-bridge").bin()`)); got != "null" {
				t.Fatalf("a bridge is found before the install: %s", got)
			}
			// A failure is notified at ERROR level, which --remote-expr reports as an error.
			n.tryLua(`vim.cmd("ClaudeCodeInstall")`)
			var res installResult
			n.luaInto(t, &res, `return require("claude-ide-bridge.install").last`)
			if corrupt {
				if res.Path != "" || !strings.Contains(res.Err, "checksum mismatch") {
					t.Fatalf("install of a corrupt archive: %+v", res)
				}
				if _, err := os.Stat(want); !os.IsNotExist(err) {
					t.Fatalf("something was installed at %s: %v", want, err)
				}
				left, _ := filepath.Glob(filepath.Join(filepath.Dir(want), "*"))
				left2, _ := filepath.Glob(filepath.Join(filepath.Dir(want), ".install-*"))
				if len(left)+len(left2) != 0 {
					t.Fatalf("left behind: %v %v", left, left2)
				}
				return
			}
			if res.Err != "" || res.Path != want {
				t.Fatalf("install: %+v", res)
			}
			out, err := exec.Command(want, "version").Output()
			if err != nil || strings.TrimSpace(string(out)) != "claude-ide-bridge "+version {
				t.Fatalf("installed bridge: %q, %v", out, err)
			}
			if got := n.str(t, `return require("claude-ide-bridge").bin()`); got != want {
				t.Fatalf("bin() %q, want the installed %q", got, want)
			}
			n.ex(t, "ClaudeCodeStart")
			n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
			readLock(t, cfg)
			n.ex(t, "checkhealth claude-ide-bridge")
			text := n.str(t, `return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")`)
			if !strings.Contains(text, "bridge version "+version) || strings.Contains(text, "ERROR") {
				t.Fatalf("checkhealth:\n%s", text)
			}
			n.tryLua(`require("claude-ide-bridge").stop()`)
			waitFor(t, "the lock file to go", func() bool {
				names, _ := filepath.Glob(filepath.Join(cfg, "ide", "*.lock"))
				return len(names) == 0
			})
		})
	}
}

// With no release reachable and Go on $PATH, :ClaudeCodeInstall builds the bridge from the
// checkout.
func TestInstallFromSource(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bridge")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	root := t.TempDir()
	data := filepath.Join(root, "data")
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	n := startNvim(t, root, "CLAUDE_CONFIG_DIR="+filepath.Join(root, "cfg"), "XDG_DATA_HOME="+data)
	n.lua(t, `require("claude-ide-bridge").setup(...)`, map[string]any{
		"auto_start": false, "install": map[string]any{"base_url": srv.URL},
	})
	n.lua(t, `vim.schedule(function() require("claude-ide-bridge.install").run() end)`)
	var res installResult
	if !harness.Poll(300*1e9, func() bool {
		r, err := n.tryLua(`return require("claude-ide-bridge.install").last`)
		return err == nil && string(r) != "null" && jsonInto(r, &res)
	}) {
		t.Fatal("the build did not finish")
	}
	want := filepath.Join(data, "nvim", "claude-ide-bridge", "bin", "claude-ide-bridge")
	if res.Path != want {
		t.Fatalf("install: %+v", res)
	}
	out, err := exec.Command(want, "version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "claude-ide-bridge "+harness.PluginVersion(t, pluginDir) {
		t.Fatalf("built bridge: %q, %v", out, err)
	}
}

func jsonInto(raw []byte, v any) bool { return json.Unmarshal(raw, v) == nil }

// Seen in a newcomer's run (issue 28): with no network, :ClaudeCodeInstall's notice held curl's
// error three times (its retries) and a failed build every "go: downloading" line, a screen of
// text behind "Press ENTER". The notice keeps each line once, without go's progress.
func TestInstallNoticeIsBrief(t *testing.T) {
	n := startNvim(t, t.TempDir())
	got := n.str(t, `return require("claude-ide-bridge.install")._brief(...)`,
		"curl: (6) Could not resolve host: github.com\ncurl: (6) Could not resolve host: github.com\ncurl: (6) Could not resolve host: github.com\n")
	if got != "curl: (6) Could not resolve host: github.com" {
		t.Fatalf("brief(curl) = %q", got)
	}
	got = n.str(t, `return require("claude-ide-bridge.install")._brief(...)`,
		"go: downloading a v1\ngo: downloading b v2\n# pkg\nx.go:1: undefined: y\n")
	if got != "# pkg\nx.go:1: undefined: y" {
		t.Fatalf("brief(go) = %q", got)
	}
}

// Issue 25 item 7: :ClaudeCodeInstall unpacked an archive whose claude-ide-bridge member was a
// symlink (or a hard link) to a file of the user's: it chmodded the target 0755 and installed
// the link. An archive with such a member installs nothing and leaves the target alone.
func TestInstallRefusesLinkMembers(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unpacks with tar")
	}
	version := harness.PluginVersion(t, pluginDir)
	for _, kind := range []byte{tar.TypeSymlink, tar.TypeLink} {
		t.Run(string(rune(kind)), func(t *testing.T) {
			root := t.TempDir()
			target := filepath.Join(root, "secret")
			os.WriteFile(target, []byte("mine\n"), 0o600)
			var buf bytes.Buffer
			gz := gzip.NewWriter(&buf)
			tw := tar.NewWriter(gz)
			if kind == tar.TypeLink {
				tw.WriteHeader(&tar.Header{Name: "other", Mode: 0o600, Size: 5, Typeflag: tar.TypeReg})
				tw.Write([]byte("mine\n"))
				tw.WriteHeader(&tar.Header{Name: "claude-ide-bridge", Linkname: "other", Typeflag: tar.TypeLink, Mode: 0o755})
			} else {
				tw.WriteHeader(&tar.Header{Name: "claude-ide-bridge", Linkname: target, Typeflag: tar.TypeSymlink, Mode: 0o777})
			}
			tw.Close()
			gz.Close()
			archive := buf.Bytes()
			name := dist.ArchiveName(version, dist.Target{OS: runtime.GOOS, Arch: runtime.GOARCH})
			sum := sha256.Sum256(archive)
			mux := http.NewServeMux()
			mux.HandleFunc("/v"+version+"/"+name, func(w http.ResponseWriter, r *http.Request) { w.Write(archive) })
			mux.HandleFunc("/v"+version+"/SHA256SUMS", func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte(dist.Sums(map[string]string{name: hex.EncodeToString(sum[:])})))
			})
			srv := httptest.NewServer(mux)
			defer srv.Close()
			data := filepath.Join(root, "data")
			n := startNvim(t, root, "XDG_DATA_HOME="+data)
			n.lua(t, `require("claude-ide-bridge").setup(...)`, map[string]any{"auto_start": false, "install": map[string]any{"base_url": srv.URL}})
			n.tryLua(`vim.cmd("ClaudeCodeInstall")`)
			var res installResult
			n.luaInto(t, &res, `return require("claude-ide-bridge.install").last`)
			if res.Path != "" || !strings.Contains(res.Err, "not a regular file") {
				t.Fatalf("install of an archive with a link member: %+v", res)
			}
			if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("the link's target: %v, %v (want 0600, untouched)", fi.Mode(), err)
			}
			want := filepath.Join(data, "nvim", "claude-ide-bridge", "bin", "claude-ide-bridge")
			if _, err := os.Lstat(want); !os.IsNotExist(err) {
				t.Fatalf("something was installed at %s: %v", want, err)
			}
		})
	}
}

// Issue 39 item 10: ":ClaudeCodeStatus says "not running" after :ClaudeCodeInstall" until the
// next Neovim: setup() found no binary to start. With auto_start (the default) the install
// starts the bridge.
func TestInstallStartsTheBridge(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unpacks with tar and runs a shell")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		if _, err := exec.LookPath("wget"); err != nil {
			t.Skip("neither curl nor wget")
		}
	}
	root := t.TempDir()
	cfg, data := filepath.Join(root, "cfg"), filepath.Join(root, "data")
	srv := harness.ReleaseServer(t, bridgeBin, harness.PluginVersion(t, pluginDir), false)
	n := startNvim(t, root, "CLAUDE_CONFIG_DIR="+cfg, "XDG_DATA_HOME="+data)
	// No binary yet: setup's start fails with an ERROR notification.
	n.tryLua(`require("claude-ide-bridge").setup(...)`, map[string]any{"install": map[string]any{"base_url": srv.URL}})
	if got := string(n.lua(t, `return require("claude-ide-bridge").state().ready`)); got != "false" {
		t.Fatalf("ready before the install: %s", got)
	}
	n.tryLua(`vim.cmd("ClaudeCodeInstall")`)
	n.waitLua(t, `true`, `return require("claude-ide-bridge").state().ready`)
	readLock(t, cfg)
	n.tryLua(`require("claude-ide-bridge").stop()`)
	waitFor(t, "the lock file to go", func() bool {
		names, _ := filepath.Glob(filepath.Join(cfg, "ide", "*.lock"))
		return len(names) == 0
	})
}
