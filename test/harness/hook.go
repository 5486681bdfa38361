package harness

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Hook runs the bridge's hook command (bin hook --port PORT) as the CLI runs a command hook,
// with input as its stdin and CLAUDE_CONFIG_DIR=cfg (HOME its parent), and returns what it
// prints once it ends.
func Hook(t testing.TB, bin, cfg string, port int, input map[string]any) <-chan string {
	t.Helper()
	cmd := hookCmd(bin, cfg, port, input)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 1)
	go func() { cmd.Wait(); ch <- out.String() }()
	return ch
}

// QuietHook runs the hook command as Hook does and fails the test unless it ends well with no
// output, as for an event the bridge only takes note of.
func QuietHook(t testing.TB, bin, cfg string, port int, input map[string]any) {
	t.Helper()
	if out, err := hookCmd(bin, cfg, port, input).CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("hook: %v %q", err, out)
	}
}

func hookCmd(bin, cfg string, port int, input map[string]any) *exec.Cmd {
	b, _ := json.Marshal(input)
	cmd := exec.Command(bin, "hook", "--port", strconv.Itoa(port))
	cmd.Env = []string{"CLAUDE_CONFIG_DIR=" + cfg, "HOME=" + filepath.Dir(cfg)}
	cmd.Stdin = bytes.NewReader(b)
	return cmd
}

// PermissionRequest is the hook input of the CLI's PermissionRequest for tool with input, as
// the CLI sends it (with a suggestion, so "always" can be offered).
func PermissionRequest(session, tool string, input map[string]any) map[string]any {
	return map[string]any{"hook_event_name": "PermissionRequest", "session_id": session, "tool_name": tool,
		"tool_input": input, "permission_suggestions": []any{map[string]any{"type": "addRules"}}}
}

// Bash is the PermissionRequest of a Bash command.
func Bash(session, command string) map[string]any {
	return PermissionRequest(session, "Bash", map[string]any{"command": command})
}

// SessionEnd is the hook input that ends a session.
func SessionEnd(session string) map[string]any {
	return map[string]any{"hook_event_name": "SessionEnd", "session_id": session}
}

// Withdrawn checks what follows an answer in Claude's own terminal to a question the editor
// shows too: the editor's question is gone (gone polls it) within 1 s, and the answer, a deny,
// did not create file.
func Withdrawn(t testing.TB, editor string, gone func() bool, file string) {
	t.Helper()
	start := time.Now()
	if !Poll(5*time.Second, gone) {
		t.Fatalf("the question stayed in %s after Claude's terminal answered", editor)
	}
	d := time.Since(start)
	t.Logf("withdrawn in %s %v after Claude's terminal answered", editor, d)
	if d > time.Second {
		t.Errorf("withdrawn after %v, want within 1 s", d)
	}
	time.Sleep(500 * time.Millisecond) // not an assertion: a wrongly applied allow would run by now
	if _, err := os.Stat(file); err == nil {
		t.Fatal("the withdrawn question wrote the file")
	}
}
