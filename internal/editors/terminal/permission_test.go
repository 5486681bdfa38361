package terminal

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

type permResult struct {
	d  permission.Decision
	ok bool
}

// ask runs one permission request of a real Broker whose editor is the rig's terminal.
func (r *rig) ask(t *testing.T, b *permission.Broker, ctx context.Context, input string) <-chan permResult {
	t.Helper()
	ch := make(chan permResult, 1)
	go func() {
		d, _, ok := b.Ask(ctx, permission.HookInput{Event: "PermissionRequest", SessionID: "session-1234567", Tool: "Bash",
			Input: json.RawMessage(input), Suggestions: json.RawMessage(`[{"type":"addRules"}]`)})
		ch <- permResult{d, ok}
	}()
	return ch
}

func broker(r *rig) *permission.Broker {
	b := &permission.Broker{}
	r.ed.BindPermissions(b.Decide)
	b.Asker = r.ed.Asker
	return b
}

func recvPerm(t *testing.T, ch <-chan permResult) permResult {
	t.Helper()
	return testbin.Recv(t, ch, "the permission request never ended")
}

// serve asks Claude's permission prompts: y allows, a always, r denies with the reason typed;
// the command is shown escaped.
func TestPermissionKeys(t *testing.T) {
	r := newRig(t)
	b := broker(r)
	ch := r.ask(t, b, context.Background(), `{"command":"touch x\u001b[2K; rm -rf ~","description":"make x"}`)
	r.scr.waitFor(t, "Allow? [y]es / [a]lways", 1)
	out := r.scr.String()
	if strings.Contains(out, "\x1b") || !strings.Contains(out, `command: touch x\x1b[2K; rm -rf ~`) || !strings.Contains(out, "asks to use Bash") {
		t.Fatalf("the prompt shows:\n%q", out)
	}
	io.WriteString(r.typing, "a\n")
	if p := recvPerm(t, ch); !p.ok || p.d.Behavior != "allow" || !p.d.Always {
		t.Fatalf("a: %+v", p)
	}
	ch = r.ask(t, b, context.Background(), `{"command":"make"}`)
	r.scr.waitFor(t, "Allow? [y]es", 2)
	io.WriteString(r.typing, "r\n")
	r.scr.waitFor(t, "reason (Enter sends): ", 1)
	io.WriteString(r.typing, "use the Makefile target\n")
	if p := recvPerm(t, ch); !p.ok || p.d.Behavior != "deny" || p.d.Message != "use the Makefile target" {
		t.Fatalf("r: %+v", p)
	}
}

// Answered in Claude's terminal first: the question line says so, and the next key is not
// taken as its answer (the next prompt gets it).
func TestPermissionWithdrawnOnScreen(t *testing.T) {
	r := newRig(t)
	b := broker(r)
	ctx, cancel := context.WithCancel(context.Background())
	ch := r.ask(t, b, ctx, `{"command":"touch x"}`)
	r.scr.waitFor(t, "Allow? [y]es", 1)
	cancel() // the CLI cancelled the hook
	if p := recvPerm(t, ch); p.ok {
		t.Fatalf("a decision after the withdrawal: %+v", p)
	}
	r.scr.waitFor(t, "(withdrawn: answered in Claude's terminal", 1)
	ch = r.ask(t, b, context.Background(), `{"command":"touch y"}`)
	r.scr.waitFor(t, "Allow? [y]es", 2)
	io.WriteString(r.typing, "n\n")
	if p := recvPerm(t, ch); !p.ok || p.d.Behavior != "deny" {
		t.Fatalf("the second prompt: %+v", p)
	}
	if b.Pending() != 0 {
		t.Fatalf("%d requests left pending", b.Pending())
	}
}
