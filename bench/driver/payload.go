package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/claudews"
	"github.com/claude-ide-bridge/claude-ide-bridge/bench/texts"
)

// payload is what the openDiff rounds carry: a file in the workspace (old on disk) and the
// proposal for it.
type payload struct {
	file string // in the workspace
	old  string // on disk before the rounds
	new  string // the proposal (round 0; later rounds change the byte at mark)
	mark int    // byte offset in new of an ASCII letter whose change keeps the hunks
}

// The openDiff texts. realistic is issue 27's: distinct source-like lines in four languages,
// the old file on disk, 10 hunks between it and the proposal (bench/texts).
const diffHunks = 10

func realisticPayload(n int) payload {
	p := texts.Realistic(n, diffHunks, 1)
	return payload{file: "bench.txt", old: p.Old, new: p.New, mark: p.Mark}
}

// earlierPayload is the text of the rows before issue 27, kept as one row: a one-line old file
// replaced by n bytes of a three-line Go stanza repeated with a counter (sourceText).
func earlierPayload(n int) payload {
	return payload{file: "bench-earlier.txt", old: "package bench\n", new: sourceText(n), mark: 1} // the "i" of "\tif"
}

// path is where the file is in workspace ws.
func (p payload) path(ws string) string { return filepath.Join(ws, p.file) }

// write puts the old file on disk.
func (p payload) write(ws string) error { return os.WriteFile(p.path(ws), []byte(p.old), 0o644) }

// contentsJSON is the proposal as a JSON string, and where the mark's byte is in it.
func (p payload) contentsJSON() ([]byte, int) {
	j, _ := json.Marshal(p.new)
	prefix, _ := json.Marshal(p.new[:p.mark])
	return j, len(prefix) - 1 // the prefix's closing quote is where the mark's byte goes
}

// sourceText returns about n bytes of deterministic Go-like source: tabs, quotes, backslashes,
// HTML-special and non-ASCII characters, so JSON encoding has real escaping to do, as with a
// real file Claude edits.
func sourceText(n int) string {
	var b strings.Builder
	b.Grow(n + 128)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "\tif x%d := f(\"héllo wörld ✓\\n\", %d); x%d < limit && ok {\n\t\tlog = append(log, &entry{i: %d}) // → 日本\n\t}\n", i, i, i, i)
	}
	s := b.String()[:n]
	for !utf8.ValidString(s) { // do not cut a character in half
		s = s[:len(s)-1]
	}
	return s
}

// selectionSeq reads the sequence number the driver put into a selection's text ("sel 000123 …").
func selectionSeq(msg []byte) (int, bool) {
	t, ok := claudews.RawField(msg, "text")
	if !ok || !bytes.HasPrefix(t, []byte(`"sel `)) {
		return 0, false
	}
	n := 0
	for _, c := range t[len(`"sel `):] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
