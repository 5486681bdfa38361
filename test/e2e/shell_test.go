package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

// Issue 18 item 3 with the real CLI: `claude-ide-bridge select FILE:2-3` and `mention FILE:2-3`
// run in a shell next to `serve` (no editor at all) reach the CLI as an editor's would: the model
// is told "The user selected the lines 2 to 3 from <path>:" with the text read from the file,
// and the mention appears at the prompt as @poem.txt#L2-3 (facts: at_mentioned inserts
// "@<path relative to the CLI cwd>#L<a>-<b> ").
func TestStandaloneShellSelectAndMention(t *testing.T) {
	t.Parallel()
	s, p := newStandalone(t, "reject", map[string]string{"poem.txt": "line one\nline two\nline three\n"})
	run := func(args ...string) {
		t.Helper()
		cmd := exec.CommandContext(s.bound(stepBound), bridgeBin, args...)
		cmd.Dir = s.Project
		cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+s.Config, "HOME="+s.Config)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	run("select", "poem.txt:2-3")
	// A selection made in the CLI's first second is held until it listens (mcp.listenAfterList);
	// on a quiet machine the prompt below would otherwise go out before it.
	waitTrace(s.bound(stepBound), t, p.Trace, "selection_changed", func(fs []frame) bool {
		for _, f := range fs {
			if f.Dir == "out" && f.m.Method == "selection_changed" && strings.Contains(string(f.m.Params), "poem.txt") {
				return true
			}
		}
		return false
	})
	s.API.Push(fakeapi.Text("SEL SEEN"))
	r := s.prompt("what did I select")
	txt := r.Text()
	i := strings.Index(txt, "The user selected the lines 2 to 3 from ")
	if i < 0 || !strings.Contains(txt[i:], "poem.txt:\nline two\nline three") {
		t.Fatalf("model request lacks the selection:\n%s", r.LastUserText())
	}
	s.CLI.WaitText(s.bound(stepBound), "SEL SEEN")
	run("mention", "poem.txt:2-3")
	s.CLI.WaitText(s.bound(stepBound), "@poem.txt#L2-3")
}
