package modeltools

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// maxFileSize bounds what is read to find a column or a context line.
const maxFileSize = 32 << 20

// lspPosition is an LSP Position (0-based line, character in the server's unit).
type lspPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start lspPosition `json:"start"`
	End   lspPosition `json:"end"`
}

type textDocument struct {
	URI string `json:"uri"`
}

// positionParams is TextDocumentPositionParams (and what references and rename add to it).
type positionParams struct {
	TextDocument textDocument   `json:"textDocument"`
	Position     lspPosition    `json:"position"`
	Context      *refContext    `json:"context,omitempty"`
	NewName      string         `json:"newName,omitempty"`
	units        map[string]int // the column in every unit; see Units
}

type refContext struct {
	IncludeDeclaration bool `json:"includeDeclaration"`
}

// Units is the request's column in each position encoding ("utf-8", "utf-16", "utf-32"), for a
// source whose server did not negotiate UTF-16.
func (p positionParams) Units() map[string]int { return p.units }

// PositionUnits is implemented by params that carry a position: the same column in every
// encoding, so that a source can hand its server the one it negotiated.
type PositionUnits interface{ Units() map[string]int }

// pathURI makes a file:// URI of an absolute path.
func pathURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// uriPath makes a path of a file:// URI ("" if it is not one).
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// files reads and caches the lines of files for one tool call, only inside roots and only of files
// the user has not excluded. Their texts, and the line slices over them, are counted in held
// until the call is done (issue 35 item 5).
type files struct {
	roots    []string               // the workspace folders, resolved (userfile.Roots)
	excluded func(path string) bool // exclude.Set.Excludes through the IDE model; nil: none
	m        map[string]fileLines
	held     *membudget.Grant
}

// fileLines is a file's lines, or why they were not read.
type fileLines struct {
	lines []string
	err   error
}

// lineCost is what one line of a file costs in its slice of lines: a string header.
const lineCost = 16

// excludedError refuses a file matching the user's exclude globs (by its name or the file a
// symlink names). Like outsideError it names the path as given and nothing else.
type excludedError struct{ given string }

func (e *excludedError) Error() string {
	return fmt.Sprintf("%s is excluded from sharing (the user's exclude globs): the code tools do not read it", e.given)
}

// check returns path (absolute) resolved, or an *outsideError or *excludedError: the one test
// before anything of a file is read, quoted or asked of a source.
func (f *files) check(path string) (string, error) {
	real, ok := userfile.Inside(path, f.roots)
	if !ok {
		return "", &outsideError{path}
	}
	if f.excluded != nil && f.excluded(path) { // judged on the link and on what it names
		return "", &excludedError{path}
	}
	return real, nil
}

// lines reads path's lines; a path outside the workspace or excluded is an error and is not read.
func (f *files) lines(path string) ([]string, error) {
	r, ok := f.m[path]
	if !ok {
		if f.m == nil {
			f.m = map[string]fileLines{}
		}
		r.lines, r.err = f.read(path)
		f.m[path] = r
	}
	return r.lines, r.err
}

func (f *files) read(path string) ([]string, error) {
	real, err := f.check(path)
	if err != nil {
		return nil, err
	}
	text, err := userfile.ReadText(f.held, real, maxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist", path)
	}
	if err != nil {
		return nil, err
	}
	cost := int64(strings.Count(text, "\n")+1) * lineCost
	if strings.Contains(text, "\r\n") {
		cost += int64(len(text)) // ReplaceAll's copy
	}
	if err := f.held.Add(cost, "the lines of "+filepath.Base(path)); err != nil {
		return nil, err
	}
	return strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n"), nil
}

// hidden is what stands for path's lines when they are never shown (outsideText, excludedText),
// "" when they may be.
func (f *files) hidden(path string) string {
	_, err := f.lines(path)
	var oe *outsideError
	var ee *excludedError
	switch {
	case errors.As(err, &ee):
		return excludedText
	case errors.As(err, &oe):
		return outsideText
	}
	return ""
}

// line is the text of a 0-based line, "" when out of range, unreadable, outside or excluded.
func (f *files) line(path string, n int) string {
	l, err := f.lines(path)
	if err != nil || n < 0 || n >= len(l) {
		return ""
	}
	return l[n]
}

// findSymbol returns the byte offset of symbol on line: the first occurrence as a whole word,
// else the first occurrence at all. -1 when absent.
func findSymbol(line, symbol string) int {
	first := strings.Index(line, symbol)
	for at := first; at >= 0; {
		if wordEdge(line, at, at+len(symbol)) {
			return at
		}
		next := strings.Index(line[at+1:], symbol)
		if next < 0 {
			break
		}
		at += 1 + next
	}
	return first
}

func wordEdge(line string, start, end int) bool {
	isWord := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	if start > 0 {
		r, _ := utf8.DecodeLastRuneInString(line[:start])
		if isWord(r) {
			return false
		}
	}
	if end < len(line) {
		r, _ := utf8.DecodeRuneInString(line[end:])
		if isWord(r) {
			return false
		}
	}
	return true
}

// units converts a byte offset on line into the column in every encoding.
func units(line string, byteOff int) map[string]int {
	prefix := line[:byteOff]
	u := map[string]int{}
	for _, enc := range []ide.Encoding{ide.UTF8, ide.UTF16, ide.UTF32} {
		u[string(enc)] = ide.Units(prefix, enc)
	}
	return u
}

// column converts a server's character offset on line (in enc) into a 1-based column counted
// in characters (runes): what a model reads, whatever the server's unit.
func column(line string, character int, enc string) int {
	return utf8.RuneCountInString(line[:ide.ByteOffset(line, character, ide.Encoding(enc))]) + 1
}
