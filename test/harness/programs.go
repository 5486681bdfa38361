package harness

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// Planted is the setting of issue 35 item 1, "the plugin never runs a program from the
// workspace": a claude-ide-bridge (the bridge under test) and a claude script in the folder
// Outside the workspace, and scripts of the same names the test plants in the workspace's
// folder on $PATH. Every script touches a mark of its own, then runs rest (what keeps it going).
type Planted struct {
	Outside string
	marks   string
	rest    string
}

// Programs is the names the plugins look up on $PATH.
var Programs = []string{"claude-ide-bridge", "claude"}

// PlantOutside makes the folder outside the workspace with bridgeBin and the claude script.
func PlantOutside(t testing.TB, bridgeBin, rest string) *Planted {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	p := &Planted{Outside: filepath.Join(root, "outside"), marks: filepath.Join(root, "marks"), rest: rest}
	os.Mkdir(p.Outside, 0o755)
	os.Mkdir(p.marks, 0o755)
	if err := os.Symlink(bridgeBin, filepath.Join(p.Outside, "claude-ide-bridge")); err != nil {
		t.Fatal(err)
	}
	p.script(t, filepath.Join(p.Outside, "claude"), "claude")
	return p
}

// Plant writes the workspace's scripts of every name in Programs into the folder dir.
func (p *Planted) Plant(t testing.TB, dir string) {
	t.Helper()
	os.Mkdir(dir, 0o755)
	for _, name := range Programs {
		p.script(t, filepath.Join(dir, name), "workspace-"+name)
	}
}

func (p *Planted) script(t testing.TB, path, mark string) {
	t.Helper()
	body := "#!/bin/sh\ntouch " + filepath.Join(p.marks, mark) + "\nexec " + p.rest + "\n"
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// ClaudeRan reports whether the claude outside the workspace ran.
func (p *Planted) ClaudeRan() bool {
	_, err := os.Stat(filepath.Join(p.marks, "claude"))
	return err == nil
}

// CheckWorkspaceIdle fails the test for each of the workspace's scripts that ran.
func (p *Planted) CheckWorkspaceIdle(t testing.TB) {
	t.Helper()
	for _, name := range Programs {
		if _, err := os.Stat(filepath.Join(p.marks, "workspace-"+name)); err == nil {
			t.Errorf("the workspace's bin/%s ran", name)
		}
	}
}

// ShellExports is env (KEY=VALUE) as `export` lines of a POSIX shell script, for a program a
// test starts through tmux (tmux gives it the server's environment, not the test's). Names a
// shell cannot export are left out: `export -f` puts BASH_FUNC_name%%=... in the environment
// of every child, and dash ends the script at such a line. So are the names in skip.
func ShellExports(env []string, skip ...string) string {
	var b strings.Builder
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !shellName.MatchString(k) || slices.Contains(skip, k) {
			continue
		}
		b.WriteString("export " + k + "=" + termtext.ShellQuote(v) + "\n")
	}
	return b.String()
}

var shellName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
