package main

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/claudews"
)

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
