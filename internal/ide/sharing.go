package ide

import (
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// What the editor shares with Claude (issue 28 item 7), enforced here for every editor:
//   - files EditorInfo.Exclude excludes (Excluded: by the path or the file a symlink names):
//     their selections are never sent nor kept (not even as getLatestSelection's answer), an
//     @-mention of one is refused, they are left out of getOpenEditors and getDiagnostics, and
//     the model's code tools (modeltools, given Excluded) neither read nor quote them;
//   - while sharing is paused (SetPaused): no selection is sent, kept or answered, and
//     getOpenEditors and getDiagnostics answer empty lists. An @-mention, which the user sends
//     on purpose, still goes (unless its file is excluded);
//   - a file the editor closed: its selection, if it is the latest, is forgotten (FileClosed),
//     so a new session never receives it.

// Sharing is what the editor shares now, for status displays.
type Sharing struct {
	Paused  bool     `json:"paused"`
	Exclude []string `json:"exclude"`
}

// SetPaused pauses or resumes sharing. Pausing forgets the latest selection.
func (m *Model) SetPaused(paused bool) Sharing {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.paused = paused
	if paused {
		m.latest, m.lastSent, m.lastPath = nil, nil, ""
	}
	return Sharing{Paused: m.paused, Exclude: m.info.Exclude.Globs()}
}

// Sharing returns whether sharing is paused and the exclude globs.
func (m *Model) Sharing() Sharing {
	m.mu.Lock()
	defer m.mu.Unlock()
	return Sharing{Paused: m.paused, Exclude: m.info.Exclude.Globs()}
}

// FileClosed tells the model the editor closed path: a latest selection in it is forgotten.
func (m *Model) FileClosed(path string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if (m.latest != nil && m.latest.FilePath == path) || m.lastPath == path {
		m.latest, m.lastSent, m.lastPath = nil, nil, ""
	}
}

// Excluded reports whether path is excluded (exclude.Set.Excludes: the path as written or the
// file a symlink names). It looks at links on disk, so it is never called under m.mu.
func (m *Model) Excluded(path string) bool {
	m.mu.Lock()
	folders := m.folders // replaced, never changed in place (SetFolders)
	m.mu.Unlock()
	return m.info.Exclude.Excludes(path, folders)
}

// shared reports whether facts about path may go to Claude now: not paused, not excluded.
func (m *Model) shared(path string) bool {
	m.mu.Lock()
	paused := m.paused
	m.mu.Unlock()
	return !paused && !m.Excluded(path)
}

func errExcluded(path string) error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s is excluded from sharing (exclude globs): not sent", path)
}
