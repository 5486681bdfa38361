package permission

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// editor is an Asker that records what it was shown and withdrawn.
type editor struct {
	asked     chan Request
	withdrawn chan uint64
	gone      chan struct{}
	refuse    error
	slow      bool // Ask waits for its context's end
}

func newEditor() *editor {
	return &editor{asked: make(chan Request, 4), withdrawn: make(chan uint64, 4), gone: make(chan struct{})}
}

func (e *editor) Ask(ctx context.Context, r Request) error {
	if e.refuse != nil {
		return e.refuse
	}
	if e.slow {
		<-ctx.Done()
		return ctx.Err()
	}
	e.asked <- r
	return nil
}
func (e *editor) Withdraw(id uint64, why string) { e.withdrawn <- id }
func (e *editor) Gone() <-chan struct{}          { return e.gone }

func in() HookInput {
	return HookInput{Event: "PermissionRequest", SessionID: "s1", Tool: "Bash", Input: json.RawMessage(`{"command":"touch x"}`),
		Suggestions: json.RawMessage(`[{"type":"addRules"}]`)}
}

type result struct {
	d    Decision
	sugg json.RawMessage
	ok   bool
}

func ask(b *Broker, ctx context.Context) chan result {
	out := make(chan result, 1)
	go func() {
		d, s, ok := b.Ask(ctx, in())
		out <- result{d, s, ok}
	}()
	return out
}

func TestNoEditorNoWait(t *testing.T) {
	b := &Broker{}
	if _, _, ok := b.Ask(context.Background(), in()); ok {
		t.Fatal("a decision without an editor")
	}
	e := newEditor()
	e.refuse = errors.New("no")
	b.Asker = func() Asker { return e }
	if _, _, ok := b.Ask(context.Background(), in()); ok || b.Pending() != 0 {
		t.Fatalf("ok %v pending %d after the editor refused", ok, b.Pending())
	}
	if len(e.withdrawn) != 0 {
		t.Fatal("a request the editor refused was withdrawn")
	}
}

// An editor too slow to show the request: the terminal decides, and the editor is told to take
// down what it may show late.
func TestSlowEditorWithdrawn(t *testing.T) {
	e := newEditor()
	e.slow = true
	b := &Broker{Asker: func() Asker { return e }, ShowTimeout: 10 * time.Millisecond}
	if _, _, ok := b.Ask(context.Background(), in()); ok || b.Pending() != 0 {
		t.Fatalf("ok %v pending %d", ok, b.Pending())
	}
	select {
	case <-e.withdrawn:
	default:
		t.Fatal("a request the editor was slow to show was not withdrawn")
	}
}

func TestDecisionNamesItsRequest(t *testing.T) {
	e := newEditor()
	b := &Broker{Asker: func() Asker { return e }}
	res := ask(b, context.Background())
	r := <-e.asked
	if r.Tool != "Bash" || r.Session != "s1" || r.Agent != "claude" || string(r.Input) != `{"command":"touch x"}` {
		t.Fatalf("asked %+v", r)
	}
	if err := b.Decide(r.ID+1, Decision{Behavior: "allow"}); !isUnknown(err) {
		t.Fatalf("a decision on another id: %v", err)
	}
	if err := b.Decide(r.ID, Decision{Behavior: "maybe"}); err == nil {
		t.Fatal("a decision that is neither allow nor deny was taken")
	}
	if err := b.Decide(r.ID, Decision{Behavior: "allow", Always: true}); err != nil {
		t.Fatal(err)
	}
	got := <-res
	if !got.ok || got.d.Behavior != "allow" || string(got.sugg) != `[{"type":"addRules"}]` {
		t.Fatalf("got %+v", got)
	}
	if err := b.Decide(r.ID, Decision{Behavior: "deny"}); !isUnknown(err) {
		t.Fatalf("a second decision: %v", err)
	}
	out := string(HookOutput(got.d, got.sugg))
	if !strings.Contains(out, `"updatedPermissions":[{"type":"addRules"}]`) || !strings.Contains(out, `"behavior":"allow"`) {
		t.Fatalf("hook output %s", out)
	}
}

// The hook cancelled (the user answered in the terminal): the editor is told, and its late
// decision is refused.
func TestCancelledWithdraws(t *testing.T) {
	e := newEditor()
	b := &Broker{Asker: func() Asker { return e }}
	ctx, cancel := context.WithCancel(context.Background())
	res := ask(b, ctx)
	r := <-e.asked
	cancel()
	if got := <-res; got.ok {
		t.Fatalf("a decision after cancel: %+v", got)
	}
	if id := <-e.withdrawn; id != r.ID {
		t.Fatalf("withdrew %d, asked %d", id, r.ID)
	}
	if err := b.Decide(r.ID, Decision{Behavior: "allow"}); !isUnknown(err) {
		t.Fatalf("a decision on a withdrawn request: %v", err)
	}
}

func TestSessionEndWithdraws(t *testing.T) {
	e := newEditor()
	b := &Broker{Asker: func() Asker { return e }}
	res := ask(b, context.Background())
	r := <-e.asked
	b.SessionEnded("other")
	select {
	case got := <-res:
		t.Fatalf("another session's end ended it: %+v", got)
	case <-time.After(50 * time.Millisecond):
	}
	b.SessionEnded("s1")
	if got := <-res; got.ok {
		t.Fatal("a decision after the session ended")
	}
	if id := <-e.withdrawn; id != r.ID {
		t.Fatalf("withdrew %d", id)
	}
}

func TestInputBounded(t *testing.T) {
	big, _ := json.Marshal(map[string]string{"command": strings.Repeat("é", MaxInput)})
	got := bound(big)
	var s string
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatalf("a big input is not a string: %v", err)
	}
	if len(s) > MaxInput+100 || !strings.Contains(s, "input truncated") {
		t.Fatalf("bounded to %d bytes: %q", len(s), s[len(s)-60:])
	}
	if string(bound(json.RawMessage(`{"a":1}`))) != `{"a":1}` {
		t.Fatal("a small input changed")
	}
}

func isUnknown(err error) bool {
	var e *jsonrpc.Error
	return errors.As(err, &e) && e.Code == jsonrpc.CodeUnknownDiff
}

// Answered in Claude's terminal without the hook cancelled (the real CLI leaves it running on
// "Yes"): the session's next PostToolUse of that tool, or its turn's end, withdraws the question
// (issue 39 item 7: Neovim's float stayed over Claude's terminal for 5 minutes).
func TestMovedOnWithdraws(t *testing.T) {
	e := newEditor()
	b := &Broker{Asker: func() Asker { return e }}
	res := ask(b, context.Background())
	r := <-e.asked
	b.MovedOn("s1", "Read")
	b.MovedOn("other", "")
	select {
	case got := <-res:
		t.Fatalf("another tool or session moving on ended it: %+v", got)
	case <-time.After(50 * time.Millisecond):
	}
	b.MovedOn("s1", "Bash")
	if got := <-res; got.ok {
		t.Fatal("a decision after the session moved on")
	}
	if id := <-e.withdrawn; id != r.ID {
		t.Fatalf("withdrew %d", id)
	}
	res = ask(b, context.Background())
	r = <-e.asked
	b.MovedOn("s1", "")
	if got := <-res; got.ok {
		t.Fatal("a decision after the turn ended")
	}
	if id := <-e.withdrawn; id != r.ID {
		t.Fatalf("withdrew %d", id)
	}
}

// An edit tool's prompt is its diff: never asked as a bare question (serve asked "Allow? Edit
// file_path" before the diff, and its y wrote the file unseen), the terminal and the diff decide.
func TestDiffToolsNotAsked(t *testing.T) {
	e := newEditor()
	b := &Broker{Asker: func() Asker { return e }, Timeout: 50 * time.Millisecond}
	for _, tool := range []string{"Edit", "Write", "MultiEdit", "NotebookEdit"} {
		q := in()
		q.Tool = tool
		if _, _, ok := b.Ask(context.Background(), q); ok {
			t.Errorf("%s: a decision, want none", tool)
		}
		select {
		case r := <-e.asked:
			t.Errorf("%s: the editor was asked %+v", tool, r)
		default:
		}
	}
}
