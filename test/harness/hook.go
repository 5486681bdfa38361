package harness

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// Hook runs the bridge's hook command (bin hook --port PORT) as the CLI runs a command hook,
// with input as its stdin and CLAUDE_CONFIG_DIR=cfg (HOME its parent), and returns what it
// prints once it ends.
func Hook(t testing.TB, bin, cfg string, port int, input map[string]any) <-chan string {
	t.Helper()
	b, _ := json.Marshal(input)
	cmd := exec.Command(bin, "hook", "--port", strconv.Itoa(port))
	cmd.Env = []string{"CLAUDE_CONFIG_DIR=" + cfg, "HOME=" + filepath.Dir(cfg)}
	cmd.Stdin = bytes.NewReader(b)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 1)
	go func() { cmd.Wait(); ch <- out.String() }()
	return ch
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
