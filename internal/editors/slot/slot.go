// Package slot is the editor seat of a bridge that outlives its editors: the editor attached
// now (a `serve --stdio` session, the first or one that came through internal/attach's socket)
// or none, in which case it answers so that no Claude call fails or hangs, and keeps every
// proposal for the next editor.
package slot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools"
)

// Editor is one editor connection as the slot holds it.
type Editor struct {
	Editor ide.Editor
	Info   ide.EditorInfo
	Code   modeltools.Source // the editor's language servers (lspRequest); nil: none
	Events ide.Events        // this editor is told about Claude clients
}

// Slot is the ide.Editor of a bridge that outlives its editors: it forwards to the editor
// attached now and, while none is, answers every call without an error or a wait:
//
//   - showDiff: the proposal stays pending (Claude's terminal can still answer it; the CLI then
//     settles it with close_tab) and is shown to the next editor that attaches (Replay);
//   - getDiagnostics: from SetOwnDiagnostics (the bridge's own language servers), else none;
//   - getOpenEditors: none; getCurrentSelection: no selection; checkDocumentDirty and
//     saveDocument: the file is not open; closeDiff: done;
//   - openFile, setBufferText, executeCode: an error saying no editor is attached.
//
// It remembers every proposal shown until its closeDiff, so a proposal shown to an editor that
// then quit is shown again to the next one. Safe for concurrent use.
type Slot struct {
	mu      sync.Mutex
	own     func(ctx context.Context, path string) ([]ide.FileDiagnostics, error)
	cur     *Editor
	last    string                        // the last editor's name, for messages
	shown   map[string]ide.ShowDiffParams // proposals not yet closed, by tab
	clients map[ide.ClientID]clientInfo   // connected clients (Claude and the other agents)
	changed chan struct{}                 // 1-buffered: a Claude client came or went
}

// New returns a slot with no editor attached.
func New() *Slot {
	return &Slot{shown: map[string]ide.ShowDiffParams{}, clients: map[ide.ClientID]clientInfo{}, changed: make(chan struct{}, 1)}
}

// Attach makes e the editor; the proposals still pending go to it with Replay.
func (s *Slot) Attach(e Editor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur, s.last = &e, e.Info.Name
}

// Detach leaves the slot without an editor, if e is still the one attached (nil: any).
func (s *Slot) Detach(e ide.Editor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil && (e == nil || s.cur.Editor == e) {
		s.cur = nil
	}
}

// SetOwnDiagnostics makes f answer getDiagnostics while no editor is attached, and for an
// attached editor that has no diagnostics of its own (the bridge's language servers).
func (s *Slot) SetOwnDiagnostics(f func(ctx context.Context, path string) ([]ide.FileDiagnostics, error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.own = f
}

// Attached reports whether an editor is attached.
func (s *Slot) Attached() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur != nil
}

// Replay tells the attached editor what happened before it came: first every connected Claude
// (clientConnected and clientPid, as if each had just connected, in the order they did), then
// every proposal still pending (pending lists the tabs the model still waits on), in the order
// they were proposed. A proposal the editor refuses stays pending (Claude's terminal can still
// answer it); the errors are returned.
func (s *Slot) Replay(ctx context.Context, pending map[string]bool) error {
	s.mu.Lock()
	cur := s.cur
	ids := make([]ide.ClientID, 0, len(s.clients))
	for id := range s.clients {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	info := maps.Clone(s.clients)
	var todo []ide.ShowDiffParams
	for tab, p := range s.shown {
		if pending[tab] {
			todo = append(todo, p)
		} else {
			delete(s.shown, tab) // settled without a closeDiff reaching us
		}
	}
	s.mu.Unlock()
	if cur == nil {
		return nil
	}
	now := ide.Agents{}
	for _, id := range ids {
		now[info[id].agent]++
		if f := cur.Events.ClientConnected; f != nil {
			f(id, info[id].agent, maps.Clone(now))
		}
		if f := cur.Events.ClientPID; f != nil && info[id].pid > 0 {
			f(id, info[id].pid)
		}
	}
	sortBySeq(todo)
	var errs []error
	for _, p := range todo {
		if err := cur.Editor.ShowDiff(ctx, p); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p.TabName, err))
		}
	}
	return errors.Join(errs...)
}

// clientInfo is what Replay tells a newly attached editor of a connected client.
type clientInfo struct {
	agent string
	pid   int // 0: not said
}

func sortBySeq(ps []ide.ShowDiffParams) {
	slices.SortFunc(ps, func(a, b ide.ShowDiffParams) int { return cmp.Compare(a.Seq, b.Seq) })
}

// Changed is signalled (coalesced) whenever a Claude client connects or disconnects.
func (s *Slot) Changed() <-chan struct{} { return s.changed }

// Events are the bridge's: they reach the attached editor's Events and signal Changed.
func (s *Slot) Events() ide.Events {
	return ide.Events{
		ClientConnected: func(id ide.ClientID, agent string, now ide.Agents) {
			s.mu.Lock()
			s.clients[id] = clientInfo{agent: agent}
			s.mu.Unlock()
			if e := s.current(); e != nil && e.Events.ClientConnected != nil {
				e.Events.ClientConnected(id, agent, now)
			}
			s.signal()
		},
		ClientPID: func(id ide.ClientID, pid int) {
			s.mu.Lock()
			if c, ok := s.clients[id]; ok {
				c.pid = pid
				s.clients[id] = c
			}
			s.mu.Unlock()
			if e := s.current(); e != nil && e.Events.ClientPID != nil {
				e.Events.ClientPID(id, pid)
			}
		},
		ClientDisconnected: func(id ide.ClientID, agent string, now ide.Agents) {
			s.mu.Lock()
			delete(s.clients, id)
			s.mu.Unlock()
			if e := s.current(); e != nil && e.Events.ClientDisconnected != nil {
				e.Events.ClientDisconnected(id, agent, now)
			}
			s.signal()
		},
		DiffsSkipped: func(id ide.ClientID, path string) {
			if e := s.current(); e != nil && e.Events.DiffsSkipped != nil {
				e.Events.DiffsSkipped(id, path)
			}
		},
	}
}

func (s *Slot) signal() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// Code is the attached editor's language servers for the model's code tools.
func (s *Slot) Code() modeltools.Source {
	return modeltools.SourceFunc(func(ctx context.Context, path, method string, params, result any) (modeltools.Answer, error) {
		e := s.current()
		switch {
		case e == nil:
			return modeltools.Answer{}, &modeltools.NoServerError{Source: "the editor", Reason: "is not attached"}
		case e.Code == nil:
			return modeltools.Answer{}, &modeltools.NoServerError{Source: e.Info.Name, Reason: "does not share its language servers with the bridge"}
		}
		return e.Code.Request(ctx, path, method, params, result)
	})
}

func (s *Slot) current() *Editor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

func (s *Slot) none() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := s.last
	if name == "" {
		name = "the editor"
	}
	return fmt.Errorf("no editor is attached (%s quit; it is attached again when it starts in this workspace)", name)
}

// ShowDiff shows the proposal, or keeps it for the next editor. An editor that goes away while
// showing it leaves it pending too: the user never saw it, and it must not become a reject.
func (s *Slot) ShowDiff(ctx context.Context, p ide.ShowDiffParams) error {
	s.mu.Lock()
	s.shown[p.TabName] = p
	cur := s.cur
	s.mu.Unlock()
	if cur == nil {
		return nil
	}
	err := cur.Editor.ShowDiff(ctx, p)
	if errors.Is(err, ide.ErrEditorGone) {
		return nil
	}
	if err != nil {
		s.mu.Lock()
		if q, ok := s.shown[p.TabName]; ok && q.Seq == p.Seq {
			delete(s.shown, p.TabName)
		}
		s.mu.Unlock()
	}
	return err
}

// DiffText asks the attached editor; without one no diff is on screen.
func (s *Slot) DiffText(ctx context.Context, tab string) (string, bool, error) {
	cur := s.current()
	if cur == nil {
		return "", false, nil
	}
	if dt, ok := cur.Editor.(ide.DiffTexter); ok && cur.Info.Caps.DiffText {
		return dt.DiffText(ctx, tab)
	}
	return "", false, nil
}

// CloseDiff forgets the proposal and closes its view in the attached editor.
func (s *Slot) CloseDiff(ctx context.Context, tab string) error {
	s.mu.Lock()
	delete(s.shown, tab)
	cur := s.cur
	s.mu.Unlock()
	if cur == nil {
		return nil
	}
	err := cur.Editor.CloseDiff(ctx, tab)
	if errors.Is(err, ide.ErrEditorGone) {
		return nil
	}
	return err
}

func (s *Slot) OpenFile(ctx context.Context, p ide.OpenFileParams) (ide.OpenFileResult, error) {
	if e := s.current(); e != nil {
		return e.Editor.OpenFile(ctx, p)
	}
	return ide.OpenFileResult{}, s.none()
}

func (s *Slot) SetBufferText(ctx context.Context, path, text string) error {
	if e := s.current(); e != nil {
		return e.Editor.SetBufferText(ctx, path, text)
	}
	return s.none()
}

func (s *Slot) OpenEditors(ctx context.Context) ([]ide.OpenEditor, error) {
	if e := s.current(); e != nil {
		return e.Editor.OpenEditors(ctx)
	}
	return []ide.OpenEditor{}, nil
}

func (s *Slot) CurrentSelection(ctx context.Context) (*ide.Selection, error) {
	if e := s.current(); e != nil {
		return e.Editor.CurrentSelection(ctx)
	}
	return nil, nil
}

func (s *Slot) CheckDirty(ctx context.Context, path string) (ide.DocState, error) {
	if e := s.current(); e != nil {
		return e.Editor.CheckDirty(ctx, path)
	}
	return ide.DocState{}, nil
}

func (s *Slot) Save(ctx context.Context, path string) (ide.DocState, error) {
	if e := s.current(); e != nil {
		return e.Editor.Save(ctx, path)
	}
	return ide.DocState{}, nil
}

// Diagnostics asks the attached editor when it has its own, else the bridge's (SetOwnDiagnostics),
// else answers none: the CLI asks before and after every edit and stops asking after three
// timeouts, so this never fails for want of an editor.
func (s *Slot) Diagnostics(ctx context.Context, path string) ([]ide.FileDiagnostics, error) {
	if e := s.current(); e != nil && e.Info.Caps.Diagnostics {
		return e.Editor.Diagnostics(ctx, path)
	}
	s.mu.Lock()
	own := s.own
	s.mu.Unlock()
	if own != nil {
		return own(ctx, path)
	}
	if path == "" {
		return []ide.FileDiagnostics{}, nil
	}
	return []ide.FileDiagnostics{{FilePath: path, Diagnostics: []ide.Diagnostic{}}}, nil
}

func (s *Slot) ExecuteCode(ctx context.Context, code string) ([]ide.Content, error) {
	if e := s.current(); e != nil {
		return e.Editor.ExecuteCode(ctx, code)
	}
	return nil, s.none()
}
