package codexctx

import (
	"cmp"
	"context"
	"path/filepath"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
)

// MaxSelection bounds activeSelectionContent, in bytes (cut on a character boundary): Codex
// itself keeps at most 200 000 characters of it in the prompt, so more would only be carried
// to be dropped.
const MaxSelection = 200_000

// MaxTabs bounds openTabs: the prompt lists each one, and a few hundred buffers are no context.
const MaxTabs = 100

// ideContext is result.ideContext of an ide-context response, as the Codex TUI reads it
// (codex-rs/tui/src/ide_context.rs): activeFile may be null, positions are 0-based.
type ideContext struct {
	ActiveFile *activeFile `json:"activeFile"`
	OpenTabs   []fileDesc  `json:"openTabs"`
}

type fileDesc struct {
	Label  string `json:"label"`
	Path   string `json:"path"` // relative to the workspace folder, else absolute
	FSPath string `json:"fsPath"`
}

type activeFile struct {
	fileDesc
	Selection              rng    `json:"selection"`
	ActiveSelectionContent string `json:"activeSelectionContent"`
	Selections             []rng  `json:"selections"`
}

type rng struct {
	Start pos `json:"start"`
	End   pos `json:"end"`
}

// pos is unsigned in Codex (u32): a negative position would fail the whole answer.
type pos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

func toPos(p ide.Position) pos { return pos{max(p.Line, 0), max(p.Character, 0)} }

// folderFor is the bridge's workspace folder holding root (Codex's cwd), compared as the
// Claude CLI compares (discovery.InFolder), also with both sides' symlinks resolved; "" when
// none does, so that another router or bridge can answer.
func folderFor(folders []string, root string) string {
	if root == "" {
		return ""
	}
	realRoot, _ := filepath.EvalSymlinks(root)
	for _, f := range folders {
		if discovery.InFolder(root, f) {
			return f
		}
		if rf, err := filepath.EvalSymlinks(f); err == nil && realRoot != "" && discovery.InFolder(realRoot, rf) {
			return f
		}
	}
	return ""
}

// buildContext is what the editor shares now, by the model's rules: the latest selection
// (none while paused or in an excluded file) and the open editors (none while paused, never an
// excluded file). Positions are the editor's (its encoding), as Claude gets them.
func buildContext(ctx context.Context, m *ide.Model, folder string) (ideContext, error) {
	out := ideContext{OpenTabs: []fileDesc{}}
	roots := append([]string{folder}, m.Folders()...) // Codex's folder first
	sel := m.LatestSelection()
	eds, err := m.OpenEditors(ctx)
	for _, e := range eds {
		if len(out.OpenTabs) == MaxTabs {
			break
		}
		out.OpenTabs = append(out.OpenTabs, describe(roots, e.FilePath, e.Label))
	}
	switch {
	case sel != nil && sel.FilePath != "":
		label := ""
		for _, e := range eds {
			if e.FilePath == sel.FilePath {
				label = e.Label
			}
		}
		out.ActiveFile = &activeFile{
			fileDesc:               describe(roots, sel.FilePath, label),
			Selection:              rng{toPos(sel.Selection.Start), toPos(sel.Selection.End)},
			ActiveSelectionContent: ide.Truncate(sel.Text, MaxSelection),
			Selections:             []rng{},
		}
	default:
		// No selection reported (or not shared): the editor's active tab, with no selection.
		for _, e := range eds {
			if e.IsActive {
				out.ActiveFile = &activeFile{fileDesc: describe(roots, e.FilePath, e.Label), Selections: []rng{}}
				break
			}
		}
	}
	return out, err
}

// describe names a file as VS Code's asRelativePath would: relative to the first of roots that
// holds it, else absolute.
func describe(roots []string, path, label string) fileDesc {
	label = cmp.Or(label, filepath.Base(path))
	rel := path
	for _, root := range roots {
		if r, err := filepath.Rel(root, path); err == nil && root != "" && filepath.IsLocal(r) {
			rel = r
			break
		}
	}
	return fileDesc{Label: label, Path: filepath.ToSlash(rel), FSPath: path}
}
