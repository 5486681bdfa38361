package companion

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// What a contextUpdate carries, bounded as the CLIs keep it (facts §1: the 10 newest files, a
// selected text of 16 KiB).
const (
	maxOpenFiles    = 10
	maxSelectedText = 16 << 10
	// maxCursorFile bounds the file read to convert the cursor's column (column).
	maxCursorFile = 1 << 20
)

// The ide/contextUpdate payload (the CLIs' IdeContext schema).
type workspaceState struct {
	OpenFiles []openFile `json:"openFiles"`
	IsTrusted *bool      `json:"isTrusted,omitempty"`
}

type openFile struct {
	Path         string  `json:"path"`
	Timestamp    int64   `json:"timestamp"`
	IsActive     bool    `json:"isActive,omitempty"`
	Cursor       *cursor `json:"cursor,omitempty"`
	SelectedText string  `json:"selectedText,omitempty"`
}

// cursor is 1-based, line and character.
type cursor struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// sendContext sends a contextUpdate each time the context may have changed, from the moment
// the CLI's GET stream is open, and only when it differs from the last one sent. While sharing
// is paused nothing is sent.
func (se *session) sendContext() {
	select {
	case <-se.opened:
	case <-se.ctx.Done():
		return
	}
	var last []byte
	for {
		select {
		case <-se.poke:
		case <-se.ctx.Done():
			return
		}
		st, ok := se.srv.contextNow(se.ctx)
		if !ok {
			continue
		}
		b, _ := json.Marshal(st)
		if bytes.Equal(b, last) {
			continue
		}
		if se.notify("ide/contextUpdate", map[string]any{"workspaceState": st}) == nil {
			last = b
		}
	}
}

// contextNow is what the editor shares now: its open files (never an excluded one), the active
// one with the cursor and selected text of the latest selection. False while sharing is paused.
func (s *Server) contextNow(ctx context.Context) (workspaceState, bool) {
	m := s.model()
	if m.Sharing().Paused {
		return workspaceState{}, false
	}
	eds, err := m.OpenEditors(ctx)
	if err != nil {
		s.log.Info("companion context: open editors", "err", err)
		eds = nil
	}
	sel := m.LatestSelection() // never of an excluded file, nil while paused
	if sel != nil && m.Excluded(sel.FilePath) {
		sel = nil
	}
	now := time.Now().UnixMilli()
	st := workspaceState{OpenFiles: []openFile{}}
	active := -1
	for _, e := range eds {
		f := openFile{Path: e.FilePath, Timestamp: now - int64(len(st.OpenFiles)) - 1}
		if e.IsActive && active < 0 {
			active = len(st.OpenFiles)
		}
		st.OpenFiles = append(st.OpenFiles, f)
	}
	if sel != nil {
		// The selection names the file the user is in, even for an editor that lists no tabs.
		found := -1
		for i, f := range st.OpenFiles {
			if f.Path == sel.FilePath {
				found = i
			}
		}
		if found < 0 {
			st.OpenFiles = append(st.OpenFiles, openFile{Path: sel.FilePath})
			found = len(st.OpenFiles) - 1
		}
		active = found
		f := &st.OpenFiles[found]
		f.Cursor = &cursor{Line: sel.Selection.End.Line + 1, Character: column(sel.FilePath, sel.Selection.End, m.Info().Encoding) + 1}
		if !sel.Selection.IsEmpty {
			f.SelectedText = ide.Truncate(sel.Text, maxSelectedText)
		}
	}
	if active >= 0 {
		// Only the newest file may be active (the CLI's rule): it gets the newest timestamp.
		st.OpenFiles[active].IsActive = true
		st.OpenFiles[active].Timestamp = now
		a := st.OpenFiles[active]
		st.OpenFiles = append(append([]openFile{a}, st.OpenFiles[:active]...), st.OpenFiles[active+1:]...)
	}
	st.OpenFiles = st.OpenFiles[:min(len(st.OpenFiles), maxOpenFiles)]
	if s.cfg.Trusted != nil && s.cfg.Trusted() {
		t := true
		st.IsTrusted = &t
	}
	return st, true
}

// column is p's character in UTF-16 code units, the unit of the CLIs' reference companion (VS
// Code's positions): an editor counts in its own enc (Neovim: bytes), so with another enc the
// line is read from the file on disk and converted (ide.ByteOffset, ide.Units); a line edited
// and not saved is converted on its text on disk. A file that cannot be read, is over
// maxCursorFile or has no such line keeps the editor's count.
func column(path string, p ide.Position, enc ide.Encoding) int {
	if enc == ide.UTF16 || p.Character <= 0 {
		return p.Character
	}
	b, err := userfile.Read(path, maxCursorFile)
	if err != nil {
		return p.Character
	}
	for range p.Line {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return p.Character
		}
		b = b[i+1:]
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i+1]
	}
	line := string(b)
	return ide.Units(line[:ide.ByteOffset(line, p.Character, enc)], ide.UTF16)
}
