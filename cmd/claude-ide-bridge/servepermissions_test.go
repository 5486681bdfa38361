package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// hookRun runs `hook --port N` as Claude does with a PermissionRequest for tool and returns what
// it prints when it ends.
func (h home) hookRun(t *testing.T, port int, tool string, input map[string]any) <-chan string {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PermissionRequest", "session_id": "s1", "tool_name": tool,
		"tool_input": input, "cwd": h.ws})
	cmd := exec.Command(bin, "hook", "--port", strconv.Itoa(port))
	cmd.Dir, cmd.Env = h.ws, h.env()
	cmd.Stdin = bytes.NewReader(b)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	ch := make(chan string, 1)
	go func() { cmd.Wait(); ch <- out.String() }()
	return ch
}

func hookOut(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	return testbin.Recv(t, ch, what+": the hook never ended")
}

// serve --permissions WebFetch,mcp__*: a Bash prompt is never asked in serve (the hook ends
// with no decision: Claude's terminal decides), a WebFetch one is; a bad list is a usage error.
func TestServePermissionsPerTool(t *testing.T) {
	h := newHome(t)
	if _, stderr, code := h.command(t, h.ws, "serve", "--workspace", h.ws, "--permissions", "Bash,"); code != 2 || !strings.Contains(stderr, "--permissions") {
		t.Fatalf("--permissions Bash,: status %d\n%s", code, stderr)
	}
	s := h.serve(t, nil, "--lsp", "none", "--permissions", "WebFetch,mcp__*")
	if out := hookOut(t, h.hookRun(t, s.port, "Bash", map[string]any{"command": "touch x"}), "Bash"); strings.TrimSpace(out) != "" {
		t.Fatalf("Bash (not listed) was decided in serve: %q", out)
	}
	fetch := h.hookRun(t, s.port, "WebFetch", map[string]any{"url": "https://example.com/"})
	s.waitCount(t, "Allow? [y]es", 1)
	if strings.Contains(s.out.String(), "touch x") || !strings.Contains(s.out.String(), "url: https://example.com/") {
		t.Fatalf("serve shows:\n%s", s.out.String())
	}
	s.stdin.Write([]byte("y\n"))
	if out := hookOut(t, fetch, "WebFetch"); !strings.Contains(out, `"behavior":"allow"`) {
		t.Fatalf("WebFetch (listed) answered y: the hook printed %q", out)
	}
}
