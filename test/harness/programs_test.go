package harness

import (
	"os/exec"
	"testing"
)

// What ShellExports writes runs in /bin/sh (dash on Debian) to its end, whatever the environment
// holds: `export -f` names (the CI script's once ended every Emacs test's tmux script at
// its first line), values with quotes and $, and skipped names stay out.
func TestShellExportsRunInSh(t *testing.T) {
	script := ShellExports([]string{
		"BASH_FUNC_suites%%=() {  go test ./test/nvim/\n}",
		"A=it's $HOME `x`",
		"TMUX=/tmp/tmux-0/default,1,0",
		"no_equals",
	}, "TMUX") + `printf '%s|%s' "$A" "${TMUX-unset}"`
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = []string{}
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "it's $HOME `x`|unset" {
		t.Fatalf("sh ran %q: %v, %q", script, err, out)
	}
}
