package remote

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
)

// Model is what the handler needs of the IDE state (an *ide.Model).
type Model interface {
	AtMentioned(ide.Mention) (delivered int, held bool, err error)
	SelectionChanged(ide.Selection)
	// Excluded: the file matches the user's exclude globs (internal/exclude); nothing of it is sent.
	Excluded(path string) bool
	Listeners() int
	Folders() []string
}

// Handler serves PathMention and PathSelect. The caller has already authenticated the request
// (transport.Handler.Authorize, the WebSocket's own checks); Handler only checks the method, the
// body and the file. It is safe for concurrent use.
func Handler(m Model) http.Handler {
	return &handler{m: m}
}

// Is reports whether a request is for this package rather than for the WebSocket endpoint.
func Is(r *http.Request) bool {
	return r.URL.Path == PathMention || r.URL.Path == PathSelect
}

type handler struct{ m Model }

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req Request
	if !transport.DecodePost(w, r, maxBody, true, &req) { // strict: our own client's body
		return
	}
	var (
		reply Reply
		err   error
	)
	switch r.URL.Path {
	case PathMention:
		reply, err = h.mention(req)
	case PathSelect:
		reply, err = h.selectLines(req)
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	transport.ReplyJSON(w, reply)
}

// check validates the request's path and lines: an absolute path to a regular file inside one of
// the workspace folders (symlinks resolved, as the folders are).
func (h *handler) check(req Request) (path string, start, end int, err error) {
	if !filepath.IsAbs(req.FilePath) {
		return "", 0, 0, fmt.Errorf("filePath must be absolute")
	}
	switch len(req.Lines) {
	case 0:
	case 2:
		start, end = req.Lines[0], req.Lines[1]
		if start < 1 || end < start {
			return "", 0, 0, fmt.Errorf("lines must be 1 <= start <= end")
		}
	default:
		return "", 0, 0, fmt.Errorf("lines must be [start, end]")
	}
	path, err = filepath.EvalSymlinks(req.FilePath)
	if err != nil {
		return "", 0, 0, fmt.Errorf("no such file: %s", req.FilePath)
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", 0, 0, fmt.Errorf("not a regular file: %s", req.FilePath)
	}
	if !InFolders(path, h.m.Folders()) {
		return "", 0, 0, fmt.Errorf("%s is not in this IDE's workspace %v", req.FilePath, h.m.Folders())
	}
	// Excluded judges the name given and the file it names (a symlink to .env is .env).
	if h.m.Excluded(req.FilePath) {
		return "", 0, 0, fmt.Errorf("%s is excluded from sharing (the bridge's exclude globs): not sent", req.FilePath)
	}
	return path, start, end, nil
}

func (h *handler) mention(req Request) (Reply, error) {
	path, start, end, err := h.check(req)
	if err != nil {
		return Reply{}, err
	}
	mention := ide.Mention{FilePath: path}
	if start > 0 {
		// Only to check that the lines exist; nothing is kept.
		if _, _, err := readLines(path, start, end, 0); err != nil {
			return Reply{}, err
		}
		s, e := start-1, end-1 // at_mentioned is 0-based, lineEnd inclusive (spec 000)
		mention.LineStart, mention.LineEnd = &s, &e
	}
	n, held, err := h.m.AtMentioned(mention)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Sessions: n, Held: held}, nil
}

func (h *handler) selectLines(req Request) (Reply, error) {
	path, start, end, err := h.check(req)
	if err != nil {
		return Reply{}, err
	}
	sel := ide.Selection{FilePath: path, FileURL: ide.FileURL(path)}
	if start > 0 {
		text, lastLen, err := readLines(path, start, end, MaxSelection)
		if err != nil {
			return Reply{}, err
		}
		// Whole lines, as a linewise Visual selection in the Neovim plugin: from the start of
		// the first to the end of the last (its line break not included). Characters are
		// UTF-16 code units, as the CLI counts them.
		sel.Text = text
		sel.Selection.Start = ide.Position{Line: start - 1}
		sel.Selection.End = ide.Position{Line: end - 1, Character: lastLen}
	}
	sel.Selection.IsEmpty = sel.Text == ""
	h.m.SelectionChanged(sel)
	return Reply{Sessions: h.m.Listeners()}, nil
}

// readLines reads lines start..end (1-based, inclusive) of path, reading no further than line
// end. With keep > 0 it returns their text (without the last line's break) and the last line's
// length in UTF-16 code units, refusing more than keep bytes; with keep == 0 it only checks that
// the lines exist. Invalid UTF-8 becomes U+FFFD.
func readLines(path string, start, end, keep int) (string, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var b strings.Builder
	last := 0
	for n := 1; n <= end; n++ {
		line, err := readLine(r, n >= start && keep > 0, keep-b.Len())
		if errors.Is(err, errTooLong) {
			return "", 0, fmt.Errorf("the selection is over %d bytes: select fewer lines", keep)
		}
		if err != nil && line == nil {
			return "", 0, fmt.Errorf("%s has %d lines: there is no line %d", path, n-1, end)
		}
		if err != nil && n < end {
			return "", 0, fmt.Errorf("%s has %d lines: there is no line %d", path, n, end)
		}
		if n < start || keep == 0 {
			continue
		}
		content := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
		content = strings.ToValidUTF8(content, "\uFFFD")
		b.WriteString(content)
		if n < end {
			b.WriteString("\n")
		}
		last = ide.Units(content, ide.UTF16)
	}
	return b.String(), last, nil
}

var errTooLong = errors.New("too long")

// readLine returns the next line with its break (nil at EOF with nothing read). Unless keep is
// set the line is skipped without being held in memory; with it, a line over limit is
// errTooLong.
func readLine(r *bufio.Reader, keep bool, limit int) ([]byte, error) {
	var out []byte
	any := false
	for {
		frag, err := r.ReadSlice('\n')
		if len(frag) > 0 {
			any = true
		}
		if keep {
			if len(out)+len(frag) > limit {
				return nil, errTooLong
			}
			out = append(out, frag...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && !any:
			return nil, io.EOF
		case err == io.EOF:
			if out == nil {
				out = []byte{}
			}
			return out, io.EOF
		case err != nil:
			return nil, err
		}
		if out == nil {
			out = []byte{}
		}
		return out, nil
	}
}

// InFolders reports whether path is one of folders or inside one.
func InFolders(path string, folders []string) bool {
	return matchFolder(path, folders) != ""
}

// matchFolder returns the longest folder that is path or contains it, or "".
func matchFolder(path string, folders []string) string {
	best := ""
	for _, f := range folders {
		if discovery.InFolder(path, f) && len(f) > len(best) {
			best = f
		}
	}
	return best
}
