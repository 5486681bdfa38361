package stdio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// hook runs `claude-ide-bridge hook` as the CLI does, input on stdin, and returns its stdout.
func (s *sidecar) hook(t *testing.T, port int, input []byte) <-chan string {
	t.Helper()
	cmd := exec.Command(bin, "hook", "--port", strconv.Itoa(port))
	cmd.Env = s.cmd.Env
	cmd.Stdin = bytes.NewReader(input)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 1)
	go func() {
		cmd.Wait()
		ch <- out.String()
	}()
	return ch
}

func permissionInput(session, command string) []byte {
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PermissionRequest", "session_id": session, "cwd": "/",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command}, "permission_suggestions": []any{}})
	return b
}

// askPermission through the real hook: the command's control characters reach the editor as
// JSON data; a session's end withdraws its prompt (the hook prints nothing, the terminal
// decides) and a decision on it is -32001; an editor that cannot show it, or an input over
// 1 MiB, leaves the terminal to decide.
func TestAskPermission(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line")
	r := s.initWith(t, map[string]bool{"askPermission": true})

	out := s.hook(t, r.Port, permissionInput("sess-1", "echo \x1b[2J\x07hi"))
	c := s.next(t, "askPermission")
	var req struct {
		ID    uint64 `json:"id"`
		Tool  string `json:"tool"`
		Input struct {
			Command string `json:"command"`
		} `json:"input"`
	}
	json.Unmarshal(c.Params, &req)
	if req.ID == 0 || req.Tool != "Bash" || req.Input.Command != "echo \x1b[2J\x07hi" {
		t.Fatalf("askPermission %s", c.Params)
	}
	if err := s.call(t, "permissionDecided", map[string]any{"behavior": "allow"}, nil); rpcCode(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("a decision without an id: %v, want -32602", err)
	}
	if err := s.call(t, "permissionDecided", map[string]any{"id": req.ID + 1, "behavior": "allow"}, nil); rpcCode(err) != jsonrpc.CodeUnknownDiff {
		t.Errorf("a decision on another id: %v, want -32001", err)
	}
	end, _ := json.Marshal(map[string]any{"hook_event_name": "SessionEnd", "session_id": "sess-1"})
	<-s.hook(t, r.Port, end)
	w := s.next(t, "permissionWithdrawn")
	if !strings.Contains(string(w.Params), `"id":`+strconv.FormatUint(req.ID, 10)) || !strings.Contains(string(w.Params), "session ended") {
		t.Errorf("permissionWithdrawn %s", w.Params)
	}
	if got := <-out; got != "" {
		t.Errorf("the withdrawn prompt's hook printed %q", got)
	}
	if err := s.call(t, "permissionDecided", map[string]any{"id": req.ID, "behavior": "allow"}, nil); rpcCode(err) != jsonrpc.CodeUnknownDiff {
		t.Errorf("a decision on the withdrawn prompt: %v, want -32001", err)
	}

	// Decided: the hook prints the CLI's answer.
	out = s.hook(t, r.Port, permissionInput("sess-2", "make"))
	json.Unmarshal(s.next(t, "askPermission").Params, &req)
	if err := s.call(t, "permissionDecided", map[string]any{"id": req.ID, "behavior": "deny", "message": "use make test"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := <-out; !strings.Contains(got, `"hookEventName":"PermissionRequest"`) || !strings.Contains(got, `"message":"use make test"`) {
		t.Errorf("the hook printed %q", got)
	}

	// The editor refuses to show it: nothing printed.
	s.answer("askPermission", func(context.Context, json.RawMessage) (any, error) { return nil, errors.New("permissions are off") })
	if got := <-s.hook(t, r.Port, permissionInput("sess-3", "ls")); got != "" {
		t.Errorf("refused by the editor, the hook printed %q", got)
	}
	s.next(t, "askPermission")
	// Over 1 MiB: never shown, nothing printed.
	if got := <-s.hook(t, r.Port, permissionInput("sess-4", strings.Repeat("x", 1<<20))); got != "" {
		t.Errorf("a 1 MiB input: the hook printed %q", got)
	}
	s.status(t) // a round trip: anything the bridge sent before is in
	s.noCall(t, "askPermission")
}

func toolInput(session, tool string, input map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PermissionRequest", "session_id": session, "cwd": "/",
		"tool_name": tool, "tool_input": input})
	return b
}

// The capability as a list of tools: a prompt for a tool outside it never reaches the editor
// and its hook falls through (prints nothing) at once; a listed name and a "prefix*" entry are
// asked. A capability that is neither true, false nor a list of names is refused.
func TestAskPermissionTools(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line")
	p := s.initParams()
	caps := map[string]any{}
	for k, v := range allCaps() {
		caps[k] = v
	}
	caps["askPermission"] = 7
	p["capabilities"] = caps
	if err := s.call(t, "initialize", p, nil); rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "askPermission") {
		t.Fatalf("askPermission 7: %v, want -32602 naming it", err)
	}
	caps["askPermission"] = []string{"WebFetch", "mcp__*"}
	r := s.initialize(t, p)

	start := time.Now()
	select {
	case got := <-s.hook(t, r.Port, toolInput("sess-1", "Bash", map[string]any{"command": "make"})):
		if got != "" {
			t.Errorf("an unlisted tool's hook printed %q", got)
		}
	case <-time.After(testbin.Bound):
		t.Fatal("an unlisted tool's hook waited: it was asked of the editor")
	}
	t.Logf("an unlisted tool fell through in %v", time.Since(start))
	s.status(t) // a round trip: anything the bridge sent before is in
	s.noCall(t, "askPermission")

	for _, tool := range []string{"WebFetch", "mcp__ide__getDiagnostics"} {
		out := s.hook(t, r.Port, toolInput("sess-"+tool, tool, map[string]any{"url": "https://example.com"}))
		var req struct {
			ID   uint64 `json:"id"`
			Tool string `json:"tool"`
		}
		json.Unmarshal(s.next(t, "askPermission").Params, &req)
		if req.Tool != tool {
			t.Fatalf("asked about %q, want %q", req.Tool, tool)
		}
		if err := s.call(t, "permissionDecided", map[string]any{"id": req.ID, "behavior": "allow"}, nil); err != nil {
			t.Fatal(err)
		}
		if got := <-out; !strings.Contains(got, `"behavior":"allow"`) {
			t.Errorf("%s: the hook printed %q", tool, got)
		}
	}
}
