// Package claudestate knows, for each Claude session started with the bridge's hooks, whether it
// is working, waiting for the user (a permission prompt or a question) or idle. The CLI runs
// `claude-ide-bridge hook` for the events of the settings file the bridge gives it on its
// command line (--settings, never the user's own settings files); the hook posts the event to
// the bridge (remote.PathHook, authenticated like `mention`), and Handler hands it to Tracker.
// What each event carries was checked on the real CLI: docs/claude-cli-notes.md.
package claudestate

import (
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
)

// State is a session's state.
type State string

const (
	Working State = "working"
	Waiting State = "waiting" // for the user: a permission prompt, a question
	Idle    State = "idle"
	Ended   State = "ended" // SessionEnd: the session is forgotten after it is reported
)

// Event is what the hook forwards of the CLI's hook input (only these fields: the prompt's
// text and tool inputs never reach the tracker; a PermissionRequest's input goes to
// internal/permission instead).
type Event struct {
	Name      string `json:"hook_event_name"`
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd,omitempty"`
	ToolName  string `json:"tool_name,omitempty"`
	Message   string `json:"message,omitempty"`           // Notification
	Type      string `json:"notification_type,omitempty"` // Notification (permission_prompt, idle_prompt, ...)
}

// Session is one Claude session's state.
type Session struct {
	ID     string    `json:"sessionId"`
	State  State     `json:"state"`
	Since  time.Time `json:"since"`
	Reason string    `json:"reason,omitempty"` // what it waits for, or the tool it runs
	Cwd    string    `json:"cwd,omitempty"`

	heard time.Time // its last event
}

// Tracker holds the sessions. Changed is called (on the hook's request goroutine, one at a
// time) whenever a session's state or reason changes; Event with every event, before.
type Tracker struct {
	Changed func(Session)
	Event   func(Event)

	mu       sync.Mutex
	sessions map[string]*Session
	report   sync.Mutex // Changed calls in order
}

// New returns an empty Tracker.
func New() *Tracker { return &Tracker{sessions: map[string]*Session{}} }

// next is the state an event puts a session in, and why; ok false: no change.
func next(ev Event, cur State) (State, string, bool) {
	switch ev.Name {
	case "SessionStart", "Stop", "StopFailure":
		return Idle, "", true
	case "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "SubagentStart":
		return Working, "", true
	case "PreToolUse":
		return Working, ev.ToolName, true
	case "PermissionRequest":
		return Waiting, "permission for " + ev.ToolName, true
	case "Notification":
		// The idle reminder ("Claude is waiting for your input") comes after a turn: it is
		// not a question.
		if ev.Type == "idle_prompt" {
			return cur, "", false
		}
		return Waiting, ev.Message, true
	case "SessionEnd":
		return Ended, "", true
	}
	return cur, "", false
}

// Hook applies one event.
func (t *Tracker) Hook(ev Event) {
	if ev.SessionID == "" {
		return
	}
	t.report.Lock()
	defer t.report.Unlock()
	if t.Event != nil {
		t.Event(ev)
	}
	t.mu.Lock()
	s := t.sessions[ev.SessionID]
	cur := State("")
	if s != nil {
		cur, s.heard = s.State, time.Now()
	}
	st, why, ok := next(ev, cur)
	if !ok || s != nil && s.State == st && s.Reason == why {
		t.mu.Unlock()
		return
	}
	if s == nil {
		s = &Session{ID: ev.SessionID, heard: time.Now()}
		t.sessions[ev.SessionID] = s
		t.boundLocked()
	}
	if s.State != st {
		s.Since = time.Now()
	}
	s.State, s.Reason = st, why
	if ev.Cwd != "" {
		s.Cwd = ev.Cwd
	}
	out := *s
	if st == Ended {
		delete(t.sessions, ev.SessionID)
	}
	t.mu.Unlock()
	if t.Changed != nil {
		t.Changed(out)
	}
}

// MaxSessions bounds the sessions kept. A CLI that is killed sends no SessionEnd, so its session
// would otherwise stay for the bridge's life (issue 35 item 7).
const MaxSessions = 256

// boundLocked forgets the session heard from longest ago while over MaxSessions.
func (t *Tracker) boundLocked() {
	for len(t.sessions) > MaxSessions {
		var old *Session
		for _, s := range t.sessions {
			if old == nil || s.heard.Before(old.heard) {
				old = s
			}
		}
		delete(t.sessions, old.ID)
	}
}

// DiffRejected is told that the user rejected a proposed diff in the editor: the sessions
// waiting for permission to edit are idle again. No hook says so: a rejection aborts the turn
// ("`[{text:"DIFF_REJECTED"}, {text:<tab_name>}]`: denied; the turn is aborted",
// ../shared/claude-cli-facts.md), so neither PostToolUse nor Stop follows, and the state stayed
// "waiting" until the next prompt (issue 39 item 5). The bridge cannot tell which session a
// diff belongs to (a diff has a WebSocket client, a hook a session id), so with two sessions
// waiting on an edit at once both become idle; the next event of the other corrects it.
func (t *Tracker) DiffRejected() {
	t.report.Lock()
	defer t.report.Unlock()
	t.mu.Lock()
	var out []Session
	for _, s := range t.sessions {
		if s.State == Waiting && permission.IsDiffTool(strings.TrimPrefix(s.Reason, "permission for ")) {
			s.State, s.Reason, s.Since = Idle, "", time.Now()
			out = append(out, *s)
		}
	}
	t.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if t.Changed != nil {
		for _, s := range out {
			t.Changed(s)
		}
	}
}

// Sessions returns every known session, oldest id first.
func (t *Tracker) Sessions() []Session {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Session, 0, len(t.sessions))
	for _, s := range t.sessions {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Handler serves remote.PathHook; the caller has authenticated the request.
func Handler(t *Tracker) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev Event
		if !transport.DecodePost(w, r, 64<<10, false, &ev) { // lax: a newer hook's extra fields are ignored
			return
		}
		t.Hook(ev)
		transport.ReplyJSON(w, struct{}{})
	})
}
