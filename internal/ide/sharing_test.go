package ide_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/exclude"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
)

// shareEditor answers open editors, diagnostics and the current selection with fixed files.
type shareEditor struct {
	ide.Editor // unused methods
	files      []string
	sel        *ide.Selection
}

func (e shareEditor) OpenEditors(context.Context) ([]ide.OpenEditor, error) {
	var out []ide.OpenEditor
	for _, f := range e.files {
		out = append(out, ide.OpenEditor{FilePath: f})
	}
	return out, nil
}

func (e shareEditor) Diagnostics(_ context.Context, path string) ([]ide.FileDiagnostics, error) {
	var out []ide.FileDiagnostics
	for _, f := range e.files {
		if path == "" || path == f {
			out = append(out, ide.FileDiagnostics{FilePath: f, Diagnostics: []ide.Diagnostic{{Message: "x in " + f, Severity: "Error"}}})
		}
	}
	return out, nil
}

func (e shareEditor) CurrentSelection(context.Context) (*ide.Selection, error) { return e.sel, nil }

// inbox records what a Claude-side client was sent.
type inbox struct {
	mu  sync.Mutex
	got []string
}

func (b *inbox) Send(m []byte)       { b.mu.Lock(); b.got = append(b.got, string(m)); b.mu.Unlock() }
func (b *inbox) SendLatest(m []byte) { b.Send(m) }
func (b *inbox) all() string         { b.mu.Lock(); defer b.mu.Unlock(); return strings.Join(b.got, "\n") }

func sharingModel(t *testing.T, track bool, globs []string) (*ide.Model, *inbox) {
	t.Helper()
	set, err := exclude.New(globs)
	if err != nil {
		t.Fatal(err)
	}
	ed := shareEditor{files: []string{"/w/main.go", "/w/.env", "/w/certs/a.pem"},
		sel: &ide.Selection{Text: "SECRET=1", FilePath: "/w/.env"}}
	m := ide.New(ed, ide.EditorInfo{Name: "T", TrackSelection: track, Exclude: set,
		Caps: ide.Capabilities{OpenEditors: true, Diagnostics: true, CurrentSelection: true}}, []string{"/w"}, ide.Events{}, nil)
	t.Cleanup(m.Close)
	b := &inbox{}
	id := m.Connect(b)
	m.Ready(id)
	m.Listening(id)
	return m, b
}

func toolText(t *testing.T, m *ide.Model, name string, args any) string {
	t.Helper()
	a, _ := json.Marshal(args)
	r, err := m.CallTool(context.Background(), 1, name, a)
	if err != nil {
		return "error: " + err.Error()
	}
	var s []string
	for _, c := range r.Content {
		s = append(s, c.Text)
	}
	return strings.Join(s, "")
}

// Issue 28 item 7: "selections, mentions, open-editor lists and diagnostics of matching files
// never leave the editor, enforced by the bridge for every editor". With the default globs.
func TestExcludedFilesNeverLeave(t *testing.T) {
	m, b := sharingModel(t, true, nil)
	m.SelectionChanged(ide.Selection{Text: "SECRET=1", FilePath: "/w/.env"})
	m.SelectionChanged(ide.Selection{Text: "-----BEGIN", FilePath: "/w/certs/a.pem"})
	if got := b.all(); got != "" {
		t.Fatalf("an excluded selection went out: %s", got)
	}
	if s := m.LatestSelection(); s != nil {
		t.Fatalf("an excluded selection was kept: %+v", s)
	}
	if got := toolText(t, m, "getLatestSelection", map[string]any{}); strings.Contains(got, "SECRET") {
		t.Fatalf("getLatestSelection: %s", got)
	}
	if _, _, err := m.AtMentioned(ide.Mention{FilePath: "/w/.env"}); err == nil || !strings.Contains(err.Error(), "excluded") {
		t.Fatalf("mention of .env: %v", err)
	}
	if got := b.all(); got != "" {
		t.Fatalf("sent: %s", got)
	}
	eds := toolText(t, m, "getOpenEditors", map[string]any{})
	diags := toolText(t, m, "getDiagnostics", map[string]any{})
	one := toolText(t, m, "getDiagnostics", map[string]any{"uri": "file:///w/.env"})
	for name, got := range map[string]string{"getOpenEditors": eds, "getDiagnostics": diags, "getDiagnostics(.env)": one} {
		if strings.Contains(got, ".env") || strings.Contains(got, "a.pem") {
			t.Errorf("%s lists an excluded file: %s", name, got)
		}
	}
	if !strings.Contains(eds, "main.go") || !strings.Contains(diags, "main.go") {
		t.Errorf("a shared file is missing: %s / %s", eds, diags)
	}
	// Asked of the editor (no tracking): an excluded current selection is "none".
	m2, _ := sharingModel(t, false, nil)
	if got := toolText(t, m2, "getCurrentSelection", map[string]any{}); strings.Contains(got, "SECRET") {
		t.Fatalf("getCurrentSelection: %s", got)
	}
	// A shared file still goes.
	m.SelectionChanged(ide.Selection{Text: "package main", FilePath: "/w/main.go"})
	if !strings.Contains(b.all(), "main.go") {
		t.Fatal("a shared selection did not go out")
	}
}

// Issue 28 item 7: "a command to pause and resume sharing at runtime"; "a closed buffer's
// selection is never sent later".
func TestPauseAndClosedFile(t *testing.T) {
	m, b := sharingModel(t, true, []string{})
	m.SelectionChanged(ide.Selection{Text: "a", FilePath: "/w/main.go"})
	if st := m.SetPaused(true); !st.Paused {
		t.Fatal("not paused")
	}
	before := b.all()
	m.SelectionChanged(ide.Selection{Text: "b", FilePath: "/w/other.go"})
	if b.all() != before || m.LatestSelection() != nil {
		t.Fatal("a selection went out or was kept while paused")
	}
	if got := toolText(t, m, "getOpenEditors", map[string]any{}); strings.Contains(got, "main.go") {
		t.Fatalf("getOpenEditors while paused: %s", got)
	}
	if got := toolText(t, m, "getDiagnostics", map[string]any{}); strings.Contains(got, "main.go") {
		t.Fatalf("getDiagnostics while paused: %s", got)
	}
	// A new session while paused is told nothing.
	late := &inbox{}
	id := m.Connect(late)
	m.Ready(id)
	m.Listening(id)
	if late.all() != "" {
		t.Fatalf("a new session got %s while paused", late.all())
	}
	m.SetPaused(false)
	m.SelectionChanged(ide.Selection{Text: "c", FilePath: "/w/main.go"})
	if !strings.Contains(late.all(), `"text":"c"`) {
		t.Fatalf("after resume nothing went out: %s", late.all())
	}
	// main.go is closed: a later session never gets its selection.
	m.FileClosed("/w/main.go")
	if m.LatestSelection() != nil {
		t.Fatal("the closed file's selection is kept")
	}
	later := &inbox{}
	id = m.Connect(later)
	m.Ready(id)
	m.Listening(id)
	if later.all() != "" {
		t.Fatalf("a new session got the closed file's selection: %s", later.all())
	}
}
