// Package harness is what the editor suites (test/nvim, test/vim, test/emacs, test/editors) and
// test/e2e share: the rule for a program that is not installed, the repository and the editor a
// suite runs, its folders, and the real Claude Code CLI started offline against the fake model
// API (test/e2e/fakeapi).
package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/dist"
)

// Need returns the path of the program name, or ends the test as Missing says.
func Need(t testing.TB, name, what string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name, what)
	}
	return p
}

// Missing ends a test that needs name, which is not installed: it skips saying loudly that what
// is not tested, or fails with CLAUDE_IDE_BRIDGE_REQUIRE_EDITORS=1 (scripts/test installs them).
func Missing(t testing.TB, name, what string) {
	t.Helper()
	if os.Getenv("CLAUDE_IDE_BRIDGE_REQUIRE_EDITORS") == "1" {
		t.Fatalf("%s is not installed (scripts/test installs it)", name)
	}
	t.Skipf("SKIPPED: %s is not installed: %s is NOT tested", name, what)
}

// ClaudeBin returns $CLAUDE_BIN, the pinned Claude Code CLI, or skips the test saying that what
// is not running; in CI (scripts/test sets it) a missing one fails.
func ClaudeBin(t testing.TB, what string) string {
	t.Helper()
	bin := os.Getenv("CLAUDE_BIN")
	if bin == "" && os.Getenv("CI") != "" {
		t.Fatalf("CLAUDE_BIN not set in CI (scripts/ensure-claude-cli): %s must run there", what)
	}
	if bin == "" {
		t.Skipf("SKIPPED: CLAUDE_BIN not set (CLAUDE_BIN=$(scripts/ensure-claude-cli)): %s is NOT running", what)
	}
	return bin
}

// AgentBin returns the agent CLI $env names (GEMINI_BIN, QWEN_BIN, CODEX_BIN), or skips the
// test saying that what is not running; in CI a missing one fails.
func AgentBin(t testing.TB, env, what string) string {
	t.Helper()
	bin := os.Getenv(env)
	if bin == "" && os.Getenv("CI") != "" {
		t.Fatalf("%s not set in CI: run set -a; eval \"$(scripts/ensure-agent-clis)\"; set +a", env)
	}
	if bin == "" {
		t.Skipf("SKIPPED: %s not set (set -a; eval \"$(scripts/ensure-agent-clis)\"; set +a): %s is NOT running", env, what)
	}
	return bin
}

// ServerBin finds a language server for a test: $env, else name on $PATH. Without one the test
// is skipped, except under CI (CI=true), where scripts/test installs them and a skip would hide
// a missing install.
func ServerBin(t testing.TB, env, name string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s not found ($%s unset, not on PATH): scripts/test installs it", name, env)
	}
	t.Skipf("SKIPPED: %s not found ($%s unset, not on PATH; scripts/ensure-language-servers installs it)", name, env)
	return ""
}

// Gopls returns $GOPLS (scripts/ensure-language-servers installs gopls v0.23.0), else gopls on
// $PATH or in $GOPATH/bin; without one it skips the test saying so, or fails in CI (ServerBin).
func Gopls(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("gopls"); err != nil && os.Getenv("GOPLS") == "" {
		out, _ := exec.Command("go", "env", "GOPATH").Output()
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "gopls")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ServerBin(t, "GOPLS", "gopls")
}

// GoEnv is the environment for a gopls started under a test's HOME: the go command's caches
// stay where they are (gopls runs go list, and cold caches made its first answer take tens of
// seconds under CI's load) and it stays offline and on the local toolchain.
func GoEnv(t testing.TB) []string {
	t.Helper()
	v, err := goEnv()
	if err != nil {
		t.Fatal("go env:", err)
	}
	return v
}

var goEnv = sync.OnceValues(func() ([]string, error) {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return nil, err
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	return []string{"GOCACHE=" + v[0], "GOMODCACHE=" + v[1], "GOPATH=" + v[2], "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPROXY=off"}, nil
})

// FakeKey is the API key the CLI is given; the fake model API takes any.
const FakeKey = "sk-ant-api03-fake-test-key-0123456789abcdefghij"

// SeedConfig writes the .claude.json in the CLI's config dir that lets it start offline, with
// FakeKey approved and the folders trusted. Facts: "Pre-seed $CLAUDE_CONFIG_DIR/.claude.json ...
// without it the CLI tries the network at start and exits."
func SeedConfig(t testing.TB, config string, trusted ...string) {
	t.Helper()
	projects := map[string]any{}
	for _, p := range trusted {
		projects[p] = map[string]any{"hasTrustDialogAccepted": true}
	}
	b, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string]any{"approved": []string{FakeKey[len(FakeKey)-20:]}, "rejected": []string{}},
		"projects":               projects,
	})
	if err := os.WriteFile(filepath.Join(config, ".claude.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// OfflineEnv is the CLI's environment (NAME=value) for the fake model API at apiURL: its key,
// and no update, telemetry, error report or marketplace traffic.
func OfflineEnv(apiURL string) []string {
	return []string{
		"ANTHROPIC_API_KEY=" + FakeKey, "ANTHROPIC_BASE_URL=" + apiURL,
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1",
	}
}

// CLIStep bounds a step that waits on the real Claude CLI drawing something: the CLI is the
// slowest program of the suites under load (at load 30 it had not drawn a selection after 10 s).
const CLIStep = 60 * time.Second

// Poll calls f until it is true, for at most d; it reports whether f became true.
func Poll(d time.Duration, f func() bool) bool {
	for deadline := time.Now().Add(d); !f(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// FileText is the file's content, or its error in <> (for comparisons and failure messages).
func FileText(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// JSONEqual reports whether a and b are the same JSON value (key order and spacing aside).
func JSONEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// Mention is at_mentioned as Claude receives it; nil lines mean "absent".
type Mention struct {
	FilePath  string `json:"filePath"`
	LineStart *int   `json:"lineStart"`
	LineEnd   *int   `json:"lineEnd"`
}

// LinesOf is the Mention of the 0-based lines start to end of path.
func LinesOf(path string, start, end int) Mention {
	return Mention{FilePath: path, LineStart: &start, LineEnd: &end}
}

// The release archive of a bridge binary, packed once per test process.
var archive struct {
	once sync.Once
	data []byte
	err  error
}

// ReleaseServer serves, as a GitHub release of version would, this machine's archive of the
// bridge bin (named and packed by internal/dist) under /v<version>/ with SHA256SUMS; with
// corrupt the sum does not match the archive. Every call of a process serves the same bin.
func ReleaseServer(t testing.TB, bin, version string, corrupt bool) *httptest.Server {
	t.Helper()
	archive.once.Do(func() {
		// Packed by a program without -race (test/harness/targz): inside this -race test binary
		// the best gzip compression of the -race bridge took 30 s of CPU, against 2.7 s.
		cmd := exec.Command("go", "run", "github.com/claude-ide-bridge/claude-ide-bridge/test/harness/targz", bin)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if archive.data, archive.err = cmd.Output(); archive.err != nil {
			archive.err = fmt.Errorf("packing %s: %v\n%s", bin, archive.err, stderr.String())
		}
	})
	if archive.err != nil {
		t.Fatal(archive.err)
	}
	name := dist.ArchiveName(version, dist.Target{OS: runtime.GOOS, Arch: runtime.GOARCH})
	sum := sha256.Sum256(archive.data)
	if corrupt {
		sum[0] ^= 1
	}
	sums := dist.Sums(map[string]string{name: hex.EncodeToString(sum[:]), "other.zip": strings.Repeat("0", 64)})
	mux := http.NewServeMux()
	mux.HandleFunc("/v"+version+"/"+name, func(w http.ResponseWriter, r *http.Request) { w.Write(archive.data) })
	mux.HandleFunc("/v"+version+"/SHA256SUMS", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(sums)) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// Root is the repository's root folder.
var Root = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}()

// EditorBin is the editor a suite runs: $env when set (scripts/test runs a suite again on a
// newer editor), else name on $PATH. Which one, and its version, goes to the log of every run.
func EditorBin(suite, env, name string) string {
	bin := name
	if b := os.Getenv(env); b != "" {
		bin = b
	}
	if out, err := exec.Command(bin, "--version").Output(); err == nil {
		first, _, _ := strings.Cut(string(out), "\n")
		fmt.Fprintf(os.Stderr, "%s: %s (%s)\n", suite, first, bin)
	}
	return bin
}

// PluginVersion is the version of the plugins under root (lua/claude-ide-bridge/version.lua's):
// the releases' version.
func PluginVersion(t testing.TB, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "lua", "claude-ide-bridge", "version.lua"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^return "(.+)"$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no version in version.lua")
	}
	return string(m[1])
}

// Dirs makes the folders names (proj, cfg, home ...) in a new temporary folder, by its real
// path (the CLI and the plugins resolve links), and returns their paths in that order.
func Dirs(t testing.TB, names ...string) []string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dirs := make([]string, len(names))
	for i, name := range names {
		dirs[i] = filepath.Join(root, name)
		if err := os.MkdirAll(dirs[i], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dirs
}
