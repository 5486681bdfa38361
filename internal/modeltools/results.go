package modeltools

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// location is a place in a file, as a server gave it (0-based, server units).
type location struct {
	URI   string   `json:"uri"`
	Range lspRange `json:"range"`
}

// anyLocation holds either shape; one pass decodes a list of either.
type anyLocation struct {
	URI                  string    `json:"uri"`
	Range                lspRange  `json:"range"`
	TargetURI            string    `json:"targetUri"`
	TargetSelectionRange *lspRange `json:"targetSelectionRange"`
}

func (a anyLocation) location() location {
	if a.TargetURI != "" {
		l := location{URI: a.TargetURI}
		if a.TargetSelectionRange != nil {
			l.Range = *a.TargetSelectionRange
		}
		return l
	}
	return location{URI: a.URI, Range: a.Range}
}

// parseLocations reads Location | Location[] | LocationLink[] | null.
func parseLocations(raw json.RawMessage) ([]location, error) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '{' {
		var l anyLocation
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, fmt.Errorf("unreadable location from the language server: %w", err)
		}
		return []location{l.location()}, nil
	}
	var items []anyLocation
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("unreadable locations from the language server: %w", err)
	}
	out := make([]location, len(items))
	for i, it := range items {
		out[i] = it.location()
	}
	return out, nil
}

// entry is one line of a tool's answer: a place and what to say after it.
type entry struct {
	path      string // absolute
	line, col int    // 1-based; col in characters
	text      string // after "path:line:col: "; the context line when empty
	order     int    // keeps the server's order among equal places (document symbols)
}

// formatter turns server places into the model's lines.
type formatter struct {
	files   files
	folders []string
	enc     string
	max     int
}

// at makes an entry of a server position in path.
func (f *formatter) at(path string, p lspPosition, text string) entry {
	line := f.files.line(path, p.Line)
	return entry{path: path, line: p.Line + 1, col: column(line, p.Character, f.enc), text: text}
}

// display is path relative to the workspace folder holding it, else absolute.
func (f *formatter) display(path string) string {
	for _, d := range f.folders {
		if userfile.Within(d, path) {
			rel, _ := filepath.Rel(d, path)
			return filepath.ToSlash(rel)
		}
	}
	return path
}

// outsideText stands for the line of a file outside the workspace, which is never quoted;
// excludedText for anything of a file the user excluded (its lines, and the names and details a
// server reads out of it).
const (
	outsideText  = "(outside the workspace: not shown)"
	excludedText = "(excluded from sharing: not shown)"
)

// context is a line of a file, trimmed and bounded, for one result line.
func (f *formatter) context(path string, line int) string {
	if h := f.files.hidden(path); h != "" {
		return h
	}
	return clip(strings.TrimSpace(f.files.line(path, line-1)), 160)
}

// clip cuts s to at most n bytes (ide.Truncate), marked with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return ide.Truncate(s, n) + "…"
}

// list writes entries sorted by place (unless keepOrder), without repeats, at most f.max,
// then "… N more" when there were more.
func (f *formatter) list(header string, es []entry, keepOrder bool) string {
	if !keepOrder {
		slices.SortStableFunc(es, func(a, b entry) int {
			if a.path != b.path {
				return strings.Compare(f.display(a.path), f.display(b.path))
			}
			return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col))
		})
	}
	var b strings.Builder
	b.WriteString(header)
	b.WriteByte('\n')
	shown, total, seen := 0, 0, map[string]bool{}
	for _, e := range es {
		text := e.text
		if text == "" || f.files.hidden(e.path) == excludedText {
			text = f.context(e.path, e.line)
		}
		s := fmt.Sprintf("%s:%d:%d: %s", f.display(e.path), e.line, e.col, text)
		if seen[s] {
			continue
		}
		seen[s] = true
		total++
		if shown < f.max {
			b.WriteString(strings.TrimRight(s, " "))
			b.WriteByte('\n')
			shown++
		}
	}
	if total > shown {
		fmt.Fprintf(&b, "… %d more not shown (%d in all)\n", total-shown, total)
	}
	return b.String()
}

var symbolKinds = [...]string{1: "file", "module", "namespace", "package", "class", "method", "property",
	"field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number",
	"boolean", "array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

func kindName(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return "symbol"
}
