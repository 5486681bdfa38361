package testbin

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// What a bridge built by ChangedRule answers to claudeCommand besides the real rule: editors'
// tests check that the claude they start follows it, so no client composes its own.
const (
	ChangedArg     = "--changed-rule"                // before the user's arguments
	ChangedNoProxy = "changed.example"               // env no_proxy and NO_PROXY (no loopback)
	ChangedNotice  = "the changed rule's own notice" // notice
)

// ruleAnchor is the line of internal/claudecmd's Compose the change goes before.
const ruleAnchor = "\twords := make([]string, len(c.Argv))\n"

const ruleChange = `	c.Argv = append(append(append([]string{}, c.Argv[:len(c.Argv)-len(r.Args)]...), %q), r.Args...)
	c.Env = map[string]string{"CLAUDE_CODE_SSE_PORT": b.Env["CLAUDE_CODE_SSE_PORT"], "no_proxy": %[2]q, "NO_PROXY": %[2]q}
	c.Notice = %q
`

// BuildChangedRule builds claude-ide-bridge to out with internal/claudecmd's rule changed
// (go build -overlay; the source is not touched): ChangedArg before the user's arguments,
// ChangedNoProxy in the environment, which keeps only CLAUDE_CODE_SSE_PORT, and ChangedNotice.
func BuildChangedRule(out string) error {
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(filepath.Dir(file)), "claudecmd", "claudecmd.go")
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
