// Package testbin holds what tests share: a bounded context (Ctx), and for tests that run
// claude-ide-bridge as a child process, the way an editor plugin or a user does, the binary built
// once per test binary (with -race when the tests run with it, so a race in the child fails the
// test too) and the goroutine-leak check.
package testbin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
)

const pkg = "github.com/claude-ide-bridge/claude-ide-bridge/cmd/claude-ide-bridge"

// Main builds the binary into a temporary directory, stores its path in *bin, runs the tests
// with goleak.VerifyTestMain and exits. Call it from TestMain. When the system's temporary
// directory is one other users can write (a sticky /tmp), the tests' temporary files go to a
// private one instead (privateTemp).
func Main(m *testing.M, bin *string, opts ...goleak.Option) {
	removeTemp := privateTemp()
	dir, err := os.MkdirTemp("", "claude-ide-bridge-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, "claude-ide-bridge")
	args := []string{"build", "-o", *bin}
	if raceEnabled {
		args = append(args, "-race") // a race in the child ends it with status 66 and a report
	}
	cmd := exec.Command(goTool(), append(args, pkg)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building claude-ide-bridge:", err)
		os.RemoveAll(dir)
		removeTemp()
		os.Exit(1)
	}
	opts = append(opts, goleak.Cleanup(func(int) { os.RemoveAll(dir); removeTemp() }))
	goleak.VerifyTestMain(m, opts...)
}

// goTool is the go command of the toolchain running the tests: go test puts that toolchain's bin
// first on $PATH.
func goTool() string { return "go" }

// privateTemp points TMPDIR (t.TempDir, os.MkdirTemp, the children run) at a new folder in the
// user's home when the current one, or a folder above it, is one other users can write: the
// bridge starts no language server, and `trust` refuses, in a workspace under such a folder
// (internal/trust.Exposed), and the tests' workspaces are temporary folders. The name is short
// (~/.cib<digits>): the tests make Unix sockets in it, whose paths must stay under 108 bytes.
// It returns the clean-up; nothing changes when the home folder is no better.
func privateTemp() (remove func()) {
	if x, err := trust.Exposed(os.TempDir()); err != nil || len(x) == 0 {
		return func() {}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return func() {}
	}
	dir, err := os.MkdirTemp(home, ".cib")
	if err != nil {
		return func() {}
	}
	if x, err := trust.Exposed(dir); err != nil || len(x) > 0 {
		os.RemoveAll(dir)
		return func() {}
	}
	os.Setenv("TMPDIR", dir)
	return func() { os.RemoveAll(dir) }
}

// Buffer is a bytes.Buffer safe for a child's output and a test reading it at once.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Bytes returns a copy of what was written.
func (b *Buffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.b.Bytes()...)
}

var (
	plainOnce sync.Once
	plainBin  string
	plainErr  error
)

// Plain returns a binary built without -race: the one in *bin when the tests run without it,
// else one built once (a -race binary reserves terabytes of address space, so a test of a
// memory limit needs the plain one).
func Plain(t testing.TB, bin string) string {
	t.Helper()
	if !raceEnabled {
		return bin
	}
	plainOnce.Do(func() {
		plainBin = bin + "-plain"
		out, err := exec.Command(goTool(), "build", "-o", plainBin, pkg).CombinedOutput()
		if err != nil {
			plainErr = fmt.Errorf("building claude-ide-bridge: %v\n%s", err, out)
		}
	})
	if plainErr != nil {
		t.Fatal(plainErr)
	}
	return plainBin
}

// Race reports whether the tests run with the race detector.
const Race = raceEnabled

// What a bridge built by ChangedRule answers to claudeCommand besides the real rule: editors'
// tests check that the claude they start follows it, so no client composes its own.
const (
	ChangedArg     = "--changed-rule"                // before the user's arguments
	ChangedNoProxy = "changed.example"               // env no_proxy and NO_PROXY (no loopback)
	ChangedNotice  = "the changed rule's own notice" // notice
)

// ruleAnchor is the line of internal/claudecmd's Compose the change goes before.
const ruleAnchor = "\tc.lines()\n\treturn c, nil\n"

const ruleChange = `	c.Argv = append(append(append([]string{}, c.Argv[:len(c.Argv)-len(r.Args)]...), %q), r.Args...)
	c.Env = map[string]string{"CLAUDE_CODE_SSE_PORT": b.Env["CLAUDE_CODE_SSE_PORT"], "no_proxy": %[2]q, "NO_PROXY": %[2]q}
	c.Notice = %q
`

// BuildChangedRule builds claude-ide-bridge to out with internal/claudecmd's rule changed
// (go build -overlay; the source is not touched): ChangedArg before the user's arguments,
// ChangedNoProxy in the environment, which keeps only CLAUDE_CODE_SSE_PORT, and ChangedNotice.
func BuildChangedRule(out string) error {
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "internal", "claudecmd", "claudecmd.go")
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if !strings.Contains(string(b), ruleAnchor) {
		return fmt.Errorf("%s no longer has the line %q the change goes before", src, ruleAnchor)
	}
	changed := strings.Replace(string(b), ruleAnchor, fmt.Sprintf(ruleChange, ChangedArg, ChangedNoProxy, ChangedNotice)+ruleAnchor, 1)
	dir := filepath.Dir(out)
	patched := filepath.Join(dir, "claudecmd.go")
	overlay := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(patched, []byte(changed), 0o644); err != nil {
		return err
	}
	o, _ := json.Marshal(map[string]any{"Replace": map[string]string{src: patched}})
	if err := os.WriteFile(overlay, o, 0o644); err != nil {
		return err
	}
	cmd := exec.Command(goTool(), "build", "-overlay", overlay, "-o", out, pkg)
	cmd.Dir = filepath.Dir(src)
	if o, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build -overlay: %v\n%s", err, o)
	}
	return nil
}

var changed struct {
	once sync.Once
	bin  string
	err  error
}

// ChangedRule is a bridge built by BuildChangedRule, once per test binary.
func ChangedRule(t *testing.T) string {
	t.Helper()
	changed.once.Do(func() {
		dir, err := os.MkdirTemp("", "claude-ide-bridge-rule-")
		if err != nil {
			changed.err = err
			return
		}
		changed.bin = filepath.Join(dir, "claude-ide-bridge")
		changed.err = BuildChangedRule(changed.bin)
	})
	if changed.err != nil {
		t.Fatal(changed.err)
	}
	return changed.bin
}
