// Package permission asks the user's editor about the CLI's permission prompts (its
// PermissionRequest hook, docs/claude-cli-notes.md): the hook's request waits here while the
// editor shows it, and ends with the editor's decision, or with none (the terminal decides)
// when no editor can answer, the editor does not answer in time, the hook is cancelled (the
// user answered in Claude's terminal) or the session ends. Every decision names its request;
// one on a request no longer pending is refused (jsonrpc.CodeUnknownDiff), never applied to
// another. What a request carries is the model's text: bounded here, shown, never run.
package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// MaxInput bounds a request's tool input as the editor gets it: over it, the input is its JSON
// text cut there, with a note.
const MaxInput = 16 << 10

// HookInput is what the CLI gives a PermissionRequest hook on stdin (the fields used).
type HookInput struct {
	Event       string          `json:"hook_event_name"`
	SessionID   string          `json:"session_id"`
	Cwd         string          `json:"cwd,omitempty"`
	Tool        string          `json:"tool_name"`
	Input       json.RawMessage `json:"tool_input,omitempty"`
	Suggestions json.RawMessage `json:"permission_suggestions,omitempty"`
}

// Request is askPermission's params (docs/editor-protocol.md).
type Request struct {
	ID      uint64 `json:"id"`
	Session string `json:"session"`
	Agent   string `json:"agent"` // "claude"
	Tool    string `json:"tool"`
	// Input is the tool's input: the JSON object as the CLI gave it, or, over MaxInput, a
	// string: its JSON text cut at MaxInput and a note.
	Input json.RawMessage `json:"input"`
	// Suggestions are the CLI's permission suggestions ("always" applies them); absent when
	// it gave none or they are over MaxInput.
	Suggestions json.RawMessage `json:"suggestions,omitempty"`
}

// Decision is the editor's answer (permissionDecided's params without the id).
type Decision struct {
	Behavior string `json:"behavior"` // "allow" or "deny"
	Message  string `json:"message,omitempty"`
	Always   bool   `json:"always,omitempty"` // allow, and apply the CLI's suggestions
}

// Check is whether d is a decision.
func (d Decision) Check() error {
	if d.Behavior != "allow" && d.Behavior != "deny" {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: "behavior" must be "allow" or "deny"`)
	}
	if d.Always && d.Behavior != "allow" {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: "always" goes with "allow"`)
	}
	return nil
}

// Asker is an editor that can show a request: Ask returns once the editor has it on screen
// (an error: it cannot, the terminal decides), Withdraw tells it the request is gone, Gone is
// closed when the editor's connection ends.
type Asker interface {
	Ask(ctx context.Context, r Request) error
	Withdraw(id uint64, why string)
	Gone() <-chan struct{}
}

// Broker holds the pending requests of one bridge.
type Broker struct {
	// Asker is the editor that answers now; nil (or returning nil): none, the terminal decides.
	Asker func() Asker
	// ShowTimeout bounds the editor's showing a request (default 2s); Timeout the user's
	// answer (default 5 min, within the hook's own timeout, claudestate.Settings).
	ShowTimeout, Timeout time.Duration

	mu      sync.Mutex
	next    uint64
	pending map[uint64]*pending
}

type pending struct {
	session, tool string
	answer        chan Decision // buffered: the one decision
	ended         chan struct{} // closed when the session ended or moved on (why says which)
	why           string
}

// ErrUnknown refuses a decision on a request that is not pending.
func errUnknown(id uint64) error {
	return jsonrpc.Errorf(jsonrpc.CodeUnknownDiff, "no pending permission request %d (answered, withdrawn or never asked)", id)
}

// Ask shows in to the editor and waits for its decision. ok false: no decision (the terminal
// decides); ctx ending (the hook cancelled) withdraws the request. An edit tool's prompt is
// never asked: its question is the diff.
func (b *Broker) Ask(ctx context.Context, in HookInput) (d Decision, suggestions json.RawMessage, ok bool) {
	if IsDiffTool(in.Tool) {
		return Decision{}, nil, false
	}
	var a Asker
	if b.Asker != nil {
		a = b.Asker()
	}
	if a == nil {
		return Decision{}, nil, false
	}
	req := Request{Session: in.SessionID, Agent: "claude", Tool: in.Tool, Input: bound(in.Input)}
	if len(in.Suggestions) <= MaxInput && json.Valid(in.Suggestions) {
		req.Suggestions = in.Suggestions
	}
	p := &pending{session: in.SessionID, tool: in.Tool, answer: make(chan Decision, 1), ended: make(chan struct{})}
	b.mu.Lock()
	if b.pending == nil {
		b.pending = map[uint64]*pending{}
	}
	b.next++
	req.ID = b.next
	b.pending[req.ID] = p
	b.mu.Unlock()
	why := "the editor did not answer in time"
	defer func() {
		if b.take(req.ID) && why != "" {
			a.Withdraw(req.ID, why)
		}
	}()
	show, cancel := context.WithTimeout(ctx, or(b.ShowTimeout, 2*time.Second))
	err := a.Ask(show, req)
	late := show.Err() != nil
	cancel()
	if err != nil {
		why = "" // refused: never shown
		if late && ctx.Err() == nil {
			why = "the editor did not show it in time" // it may still: take it down
		}
		return Decision{}, nil, false
	}
	timer := time.NewTimer(or(b.Timeout, 5*time.Minute))
	defer timer.Stop()
	select {
	case d := <-p.answer:
		why = ""
		return d, req.Suggestions, true
	case <-ctx.Done():
		why = "answered in Claude's terminal"
	case <-p.ended:
		b.mu.Lock()
		why = p.why
		b.mu.Unlock()
	case <-a.Gone():
		why = ""
	case <-timer.C:
	}
	return Decision{}, nil, false
}

// take removes id; false: it was not pending.
func (b *Broker) take(id uint64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.pending[id]
	delete(b.pending, id)
	return ok
}

// Decide answers request id; a request no longer pending is refused with CodeUnknownDiff.
func (b *Broker) Decide(id uint64, d Decision) error {
	if err := d.Check(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.pending[id]
	if p == nil {
		return errUnknown(id)
	}
	delete(b.pending, id)
	p.answer <- d
	return nil
}

// SessionEnded withdraws the session's pending requests.
func (b *Broker) SessionEnded(session string) { b.end(session, "", "the session ended") }

// MovedOn withdraws the session's pending requests for tool ("": every tool) once the session
// went past them: the tool ran or failed (PostToolUse, PostToolUseFailure: the question was
// answered in Claude's terminal, whose answer does not always cancel the hook), or the turn
// ended or a new prompt came.
func (b *Broker) MovedOn(session, tool string) { b.end(session, tool, "answered in Claude's terminal") }

func (b *Broker) end(session, tool, why string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.pending {
		if p.session == session && (tool == "" || p.tool == tool) {
			select {
			case <-p.ended:
			default:
				p.why = why
				close(p.ended)
			}
		}
	}
}

// Pending is how many requests wait for a decision.
func (b *Broker) Pending() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}

// bound is the tool input as the editor gets it: the object, or over MaxInput (or not JSON) a
// string of its first MaxInput bytes (whole characters) and a note.
func bound(in json.RawMessage) json.RawMessage {
	if len(in) == 0 {
		return json.RawMessage("{}")
	}
	if len(in) <= MaxInput && json.Valid(in) {
		return in
	}
	cut := in
	if len(cut) > MaxInput {
		cut = cut[:MaxInput]
		for len(cut) > 0 && !utf8.Valid(cut) {
			cut = cut[:len(cut)-1]
		}
	}
	s, _ := json.Marshal(fmt.Sprintf("%s… [input truncated: %d bytes in all]", cut, len(in)))
	return s
}

// HookOutput is what the hook prints for d: the CLI's PermissionRequest answer. Always applies
// the suggestions (updatedPermissions).
func HookOutput(d Decision, suggestions json.RawMessage) []byte {
	dec := map[string]any{"behavior": d.Behavior}
	if d.Behavior == "deny" {
		msg := d.Message
		if msg == "" {
			msg = "Denied in the editor"
		}
		dec["message"] = msg
	}
	if d.Always && len(suggestions) > 0 {
		dec["updatedPermissions"] = suggestions
	}
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PermissionRequest", "decision": dec}})
	return out
}

func or(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
