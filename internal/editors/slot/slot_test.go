package slot_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/editors/slot"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
)

// editor records the diffs it is shown and closed; showErr fails ShowDiff.
type editor struct {
	ide.Editor // nil: any other call panics, which would fail the test
	mu         sync.Mutex
	shown      []string
	closed     []string
	showErr    error
}

func (e *editor) ShowDiff(_ context.Context, p ide.ShowDiffParams) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.shown = append(e.shown, fmt.Sprintf("%s#%d", p.TabName, p.Seq))
	return e.showErr
}

func (e *editor) CloseDiff(_ context.Context, tab string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = append(e.closed, tab)
	return nil
}

func (e *editor) got() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.shown)
}

func show(t *testing.T, s *slot.Slot, tab string, seq uint64) {
	t.Helper()
	if err := s.ShowDiff(context.Background(), ide.ShowDiffParams{TabName: tab, Seq: seq}); err != nil {
		t.Fatalf("ShowDiff %s: %v", tab, err)
	}
}

// Item 2: "an openDiff stays pending while no editor is attached; an attaching editor is shown
// every pending proposal".
func TestSlotKeepsProposalsForTheNextEditor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := slot.New()
	first := &editor{}
	s.Attach(slot.Editor{Editor: first, Info: ide.EditorInfo{Name: "Neovim"}})
	show(t, s, "A", 1) // shown to the first editor
	s.Detach(first)
	show(t, s, "C", 3) // no editor: held, answered at once
	show(t, s, "B", 2)
	show(t, s, "gone", 4)
	s.CloseDiff(ctx, "gone") // the CLI settled it in its terminal
	show(t, s, "settled", 5) // settled without a closeDiff reaching the slot

	next := &editor{}
	s.Attach(slot.Editor{Editor: next, Info: ide.EditorInfo{Name: "Neovim"}})
	if err := s.Replay(ctx, map[string]bool{"A": true, "B": true, "C": true, "gone": true}); err != nil {
		t.Fatal(err)
	}
	if got, want := next.got(), []string{"A#1", "B#2", "C#3"}; !slices.Equal(got, want) {
		t.Errorf("shown to the attaching editor: %v, want %v (pending ones, in proposal order)", got, want)
	}
	// Shown again to the one after, unless closed meanwhile.
	s.CloseDiff(ctx, "B")
	s.Detach(next)
	last := &editor{}
	s.Attach(slot.Editor{Editor: last})
	s.Replay(ctx, map[string]bool{"A": true, "C": true})
	if got, want := last.got(), []string{"A#1", "C#3"}; !slices.Equal(got, want) {
		t.Errorf("shown to the third editor: %v, want %v", got, want)
	}
}

// An editor that goes away while showing a proposal leaves it pending (the user never saw it),
// where a bridge without outliving would settle it as rejected; any other refusal is the
// editor's answer and the proposal is forgotten.
func TestSlotEditorGoneWhileShowing(t *testing.T) {
	t.Parallel()
	s := slot.New()
	e := &editor{showErr: fmt.Errorf("stdio: %w", ide.ErrEditorGone)}
	s.Attach(slot.Editor{Editor: e})
	show(t, s, "A", 1)
	refusing := &editor{showErr: errors.New("unsaved changes")}
	s.Attach(slot.Editor{Editor: refusing})
	if err := s.ShowDiff(context.Background(), ide.ShowDiffParams{TabName: "B", Seq: 2}); err == nil {
		t.Error("a refusal was not passed on")
	}
	next := &editor{}
	s.Attach(slot.Editor{Editor: next})
	s.Replay(context.Background(), map[string]bool{"A": true, "B": true})
	if got := next.got(); !slices.Equal(got, []string{"A#1"}) {
		t.Errorf("replayed %v, want only A", got)
	}
}

// While no editor is attached every call answers at once: diagnostics empty (the CLI stops
// asking after three timeouts), no open editors, no selection, files not open; actions that
// need an editor say why.
func TestSlotWithoutEditor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := slot.New()
	s.Attach(slot.Editor{Editor: &editor{}, Info: ide.EditorInfo{Name: "Neovim"}})
	s.Detach(nil)
	if s.Attached() {
		t.Fatal("attached after Detach")
	}
	d, err := s.Diagnostics(ctx, "/w/a.go")
	if err != nil || len(d) != 1 || d[0].FilePath != "/w/a.go" || d[0].Diagnostics == nil || len(d[0].Diagnostics) != 0 {
		t.Errorf("Diagnostics(file) = %+v, %v", d, err)
	}
	if d, err := s.Diagnostics(ctx, ""); err != nil || d == nil || len(d) != 0 {
		t.Errorf("Diagnostics(all) = %+v, %v", d, err)
	}
	if eds, err := s.OpenEditors(ctx); err != nil || eds == nil || len(eds) != 0 {
		t.Errorf("OpenEditors = %+v, %v", eds, err)
	}
	if sel, err := s.CurrentSelection(ctx); sel != nil || err != nil {
		t.Errorf("CurrentSelection = %+v, %v", sel, err)
	}
	if st, err := s.CheckDirty(ctx, "/w/a.go"); st.IsOpen || err != nil {
		t.Errorf("CheckDirty = %+v, %v", st, err)
	}
	if _, err := s.OpenFile(ctx, ide.OpenFileParams{}); err == nil || !contains(err.Error(), "no editor is attached (Neovim quit") {
		t.Errorf("OpenFile: %v", err)
	}
	own := false
	s.SetOwnDiagnostics(func(context.Context, string) ([]ide.FileDiagnostics, error) { own = true; return nil, nil })
	s.Diagnostics(ctx, "/w/a.go")
	if !own {
		t.Error("the bridge's own language servers were not asked")
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// An attaching editor is told every connected client (and its agent) before any proposal, as if each had just
// connected (its status and its sessions-per-tab placement need them); gone ones are not told.
func TestSlotReplayTellsConnectedClients(t *testing.T) {
	t.Parallel()
	s := slot.New()
	ev := s.Events()
	ev.ClientConnected(1, "claude", ide.Agents{"claude": 1})
	ev.ClientPID(1, 4242)
	ev.ClientConnected(2, "claude", ide.Agents{"claude": 2})
	ev.ClientConnected(3, "gemini", ide.Agents{"claude": 2, "gemini": 1})
	ev.ClientPID(3, 4343)
	ev.ClientDisconnected(2, "claude", ide.Agents{"claude": 1, "gemini": 1})
	show(t, s, "A", 1)
	var got []string
	next := &editor{}
	s.Attach(slot.Editor{Editor: next, Events: ide.Events{
		ClientConnected: func(id ide.ClientID, agent string, now ide.Agents) {
			got = append(got, fmt.Sprintf("%s connected %d (%s)", agent, id, now.Line()))
		},
		ClientPID: func(id ide.ClientID, pid int) { got = append(got, fmt.Sprintf("pid %d %d", id, pid)) },
	}})
	s.Replay(context.Background(), map[string]bool{"A": true})
	want := []string{"claude connected 1 (1 client (Claude))", "pid 1 4242", "gemini connected 3 (2 clients (Claude 1, Gemini 1))", "pid 3 4343"}
	if !slices.Equal(got, want) {
		t.Errorf("told %q, want %q", got, want)
	}
	if !slices.Equal(next.got(), []string{"A#1"}) {
		t.Errorf("shown %v", next.got())
	}
}
