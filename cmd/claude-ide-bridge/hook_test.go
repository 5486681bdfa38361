package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The hook never fails the CLI: a problem is one line on stderr, nothing on stdout, status 0.
func TestHookProblemsGoToStderr(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	for _, c := range []struct {
		args     []string
		in, want string
	}{
		{nil, "{}", "usage: claude-ide-bridge hook --port N"},
		{[]string{"--port", "1"}, "not JSON", "claude-ide-bridge hook: reading the hook's input: invalid character"},
		{[]string{"--port", "1"}, `{"hook_event_name":"Stop","session_id":"s"}`, "claude-ide-bridge hook: no claude-ide-bridge lock for port 1\n"},
		{[]string{"--port", "1"}, `{"hook_event_name":"PermissionRequest","session_id":"s"}`, "claude-ide-bridge hook: no claude-ide-bridge lock for port 1\n"},
	} {
		var out, errb bytes.Buffer
		err := cmdHook(context.Background(), c.args, strings.NewReader(c.in), &out, &errb)
		if err != nil || out.Len() != 0 || !strings.HasPrefix(errb.String(), c.want) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("hook %v <%s: %v, stdout %q, stderr %q, want %q", c.args, c.in, err, out.String(), errb.String(), c.want)
		}
	}
}
