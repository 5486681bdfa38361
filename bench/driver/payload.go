package main

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
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

// rawField returns the raw JSON value of the first "key": in msg: a whole string token
// (quotes included) or, for other values, the bytes up to the next ',' or '}'. The driver uses it
// on messages of a few MiB where decoding would cost more than the thing measured. It is safe
// against false matches inside strings: there every '"' is escaped, so `"key":` cannot occur.
func rawField(msg []byte, key string) ([]byte, bool) {
	pat := `"` + key + `":`
	i := bytes.Index(msg, []byte(pat))
	if i < 0 {
		return nil, false
	}
	v := msg[i+len(pat):]
	v = bytes.TrimLeft(v, " ")
	if len(v) == 0 {
		return nil, false
	}
	if v[0] != '"' {
		end := bytes.IndexAny(v, ",}")
		if end < 0 {
			return nil, false
		}
		return bytes.TrimSpace(v[:end]), true
	}
	for j := 1; ; {
		k := bytes.IndexByte(v[j:], '"')
		if k < 0 {
			return nil, false
		}
		q := j + k
		bs := 0
		for p := q - 1; p > 0 && v[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			return v[:q+1], true
		}
		j = q + 1
	}
}

// selectionSeq reads the sequence number the driver put into a selection's text ("sel 000123 …").
func selectionSeq(msg []byte) (int, bool) {
	t, ok := rawField(msg, "text")
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
