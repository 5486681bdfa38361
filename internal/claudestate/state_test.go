package claudestate

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// The events as the real CLI 2.1.328 sent them (docs/claude-cli-notes.md): a prompt, a tool
// that asks (PermissionRequest), the answer (PostToolUse), the end of the turn (Stop).
func TestStates(t *testing.T) {
	tr := New()
	var seen []string
	tr.Changed = func(s Session) { seen = append(seen, string(s.State)+":"+s.Reason) }
	for _, ev := range []Event{
		{Name: "SessionStart", SessionID: "s1"},
		{Name: "UserPromptSubmit", SessionID: "s1"},
		{Name: "PostToolUse", SessionID: "s1", ToolName: "Read"}, // still working: no change
		{Name: "PermissionRequest", SessionID: "s1", ToolName: "Bash"},
		{Name: "PostToolUse", SessionID: "s1", ToolName: "Bash"},
		{Name: "Notification", SessionID: "s1", Type: "idle_prompt", Message: "Claude is waiting for your input"},
		{Name: "Stop", SessionID: "s1"},
		{Name: "Notification", SessionID: "s2", Message: "Claude needs your permission to use Bash"},
		{Name: "Stop", SessionID: ""}, // no session: ignored
	} {
		tr.Hook(ev)
	}
	want := "idle: working: waiting:permission for Bash working: idle: waiting:Claude needs your permission to use Bash"
	if got := strings.Join(seen, " "); got != want {
		t.Errorf("changes\n%s\nwant\n%s", got, want)
	}
	if ss := tr.Sessions(); len(ss) != 2 || ss[0].ID != "s1" || ss[0].State != Idle || ss[1].State != Waiting {
		t.Errorf("sessions %+v", ss)
	}
	tr.Hook(Event{Name: "SessionEnd", SessionID: "s2"})
	if ss := tr.Sessions(); len(ss) != 1 || seen[len(seen)-1] != "ended:" {
		t.Errorf("after SessionEnd: %+v %v", ss, seen)
	}
}

// The settings file hooks each event with `EXE hook --port N` (quoted for the shell) and sets
// nothing else.
func TestSettings(t *testing.T) {
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
				Timeout       int
			} `json:"hooks"`
		} `json:"hooks"`
	}
	raw := Settings("/opt/it's here/claude-ide-bridge", 4242)
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	json.Unmarshal(raw, &top)
	if len(top) != 1 || len(s.Hooks) != len(HookEvents) {
		t.Fatalf("settings %s", raw)
	}
	for _, e := range HookEvents {
		h := s.Hooks[e]
		if len(h) != 1 || len(h[0].Hooks) != 1 || h[0].Hooks[0].Command != `'/opt/it'\''s here/claude-ide-bridge' hook --port 4242` || h[0].Hooks[0].Type != "command" {
			t.Errorf("%s: %+v", e, h)
		}
	}
}

// A CLI killed (SIGKILL, a crash, the terminal gone) sends no SessionEnd: its session was kept
// for the bridge's life, one more with every such CLI (issue 35 item 7). At most MaxSessions
// are kept; the one heard from longest ago goes first.
func TestSessionsBounded(t *testing.T) {
	tr := New()
	for i := range MaxSessions + 100 {
		tr.Hook(Event{Name: "UserPromptSubmit", SessionID: "killed-" + strconv.Itoa(i)})
	}
	// The oldest kept says something, then a new session comes: the next oldest goes.
	tr.Hook(Event{Name: "Stop", SessionID: "killed-100"})
	tr.Hook(Event{Name: "SessionStart", SessionID: "new"})
	ss := tr.Sessions()
	if len(ss) != MaxSessions {
		t.Fatalf("%d sessions kept, want %d", len(ss), MaxSessions)
	}
	kept := map[string]bool{}
	for _, s := range ss {
		kept[s.ID] = true
	}
	if !kept["new"] || !kept["killed-100"] || kept["killed-101"] || kept["killed-99"] {
		t.Errorf("kept the wrong sessions: new %v, killed-100 %v (want both), killed-101 %v, killed-99 %v (want neither)",
			kept["new"], kept["killed-100"], kept["killed-101"], kept["killed-99"])
	}
}

// A rejected diff ends a wait for an edit's permission (no hook follows: the turn is aborted);
// a wait for another tool, or a question, stays.
func TestDiffRejectedEndsEditWait(t *testing.T) {
	tr := New()
	var seen []string
	tr.Changed = func(s Session) { seen = append(seen, s.ID+":"+string(s.State)) }
	tr.Hook(Event{Name: "PermissionRequest", SessionID: "a", ToolName: "Write"})
	tr.Hook(Event{Name: "PermissionRequest", SessionID: "b", ToolName: "Bash"})
	tr.Hook(Event{Name: "Notification", SessionID: "c", Message: "Claude needs your permission to use Edit"})
	seen = nil
	tr.DiffRejected()
	if got := strings.Join(seen, " "); got != "a:idle" {
		t.Errorf("changes %q, want a:idle", got)
	}
	for _, s := range tr.Sessions() {
		if want := map[string]State{"a": Idle, "b": Waiting, "c": Waiting}[s.ID]; s.State != want {
			t.Errorf("%s is %s, want %s", s.ID, s.State, want)
		}
	}
}
