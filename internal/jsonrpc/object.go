package jsonrpc

import (
	"bytes"
	"errors"
	"hash/maphash"
	"io"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// JSON is read with jsontext, which by default checks what RFC 7493 (I-JSON) asks: the syntax,
// UTF-8 in every string, no name twice in an object. Fed a *bytes.Buffer it reads in place.

// member is one member of an object: its name, unescaped, and its value, a slice of the input.
type member struct {
	name  string
	value []byte
}

// trimSpace drops JSON's white space (RFC 8259 §2) from both ends; bytes.TrimSpace would also
// take U+2006.
func trimSpace(d []byte) []byte { return bytes.Trim(d, " \t\r\n") }

// check reports whether d is exactly one JSON value (white space around it allowed).
func check(d []byte, opts ...jsontext.Options) error {
	dec := jsontext.NewDecoder(bytes.NewBuffer(d), opts...)
	if err := dec.SkipValue(); err != nil {
		return err
	}
	return end(dec)
}

// end reports an error unless dec is at the end of its input.
func end(dec *jsontext.Decoder) error {
	_, err := dec.ReadToken()
	switch err {
	case io.EOF:
		return nil
	case nil:
		return errors.New("jsontext: invalid data after top-level value")
	}
	return err
}

// readObject checks that d, which begins with '{', is exactly one JSON object (white space
// after it allowed) and returns its members in order. With dups a name may repeat below the
// outermost object; one that repeats in it is a *dupError, after any syntax error. A remembered
// big string in d (below) is not read again.
func readObject(d []byte, dups bool) ([]member, error) {
	if sub, at, n := substitute(d); at >= 0 {
		if ms, err := readMembers(sub, d, at, n-2, dups); err == nil {
			return ms, nil
		}
		// The error, or the rare valid input where sub is not: read d itself.
	}
	return readMembers(d, d, len(d), 0, dups)
}

// readMembers reads the object sub, which is d with shift bytes fewer after offset at; its
// members' values are slices of d.
func readMembers(sub, d []byte, at, shift int, dups bool) ([]member, error) {
	orig := func(o int) int {
		if o > at {
			return o + shift
		}
		return o
	}
	dec := jsontext.NewDecoder(bytes.NewBuffer(sub), jsontext.AllowDuplicateNames(dups))
	if _, err := dec.ReadToken(); err != nil { // '{'
		return nil, err
	}
	var ms []member
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		name := tok.String()
		start := orig(int(dec.InputOffset()))
		if err := walk(dec, sub); err != nil {
			return nil, err
		}
		value := bytes.TrimLeft(d[start:orig(int(dec.InputOffset()))], " \t\r\n:")
		ms = append(ms, member{name, value})
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	if err := end(dec); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.name] {
			return nil, &dupError{m.name}
		}
		seen[m.name] = true
	}
	return ms, nil
}

// walk reads the value at dec's next token (d is dec's input) and remembers the big strings in
// it. It descends into an object or array only while it may hold one (bigString bytes of input
// are left); else jsontext reads the value whole.
func walk(dec *jsontext.Decoder, d []byte) error {
	if k := dec.PeekKind(); (k == '{' || k == '[') && len(d)-int(dec.InputOffset()) >= bigString {
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for next := dec.PeekKind(); next != '}' && next != ']'; next = dec.PeekKind() {
			if k == '{' { // a name first
				if _, err := dec.ReadToken(); err != nil {
					return err
				}
			}
			if err := walk(dec, d); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	}
	v, err := dec.ReadValue()
	if end := int(dec.InputOffset()); err == nil && len(v) >= bigString && v[0] == '"' {
		remember(d[end-len(v) : end])
	}
	return err
}

// A file text crosses several layers that each read their message: JSON-RPC, MCP's tools/call,
// the tool's arguments, and the editor's accept brings the same text back; jsontext checks a
// 10 MiB text at ~0.3 GB/s. So a string of at least bigString bytes found valid is remembered by
// length, a seeded 64-bit hash of its bytes (maphash) and its first bytes; where the next layer
// meets the same bytes as a value it reads `""` in their place, and only hashes them (~8 GB/s
// here). Bytes that differ in any way hash differently and are read in full.
const bigString = 64 << 10

var memo struct {
	sync.Mutex
	seed    maphash.Seed
	entries [8]memoEntry
	next    int
}

func init() { memo.seed = maphash.MakeSeed() }

type memoEntry struct {
	h      uint64
	n      int    // the literal's length, quotes included; 0: unused
	prefix string // its first bytes, to find it by
}

func remember(lit []byte) {
	e := memoEntry{maphash.Bytes(memo.seed, lit), len(lit), string(lit[:32])}
	memo.Lock()
	defer memo.Unlock()
	for i, f := range memo.entries {
		if f.n == e.n && f.prefix == e.prefix {
			// An edit of the last text (Claude's next proposal for the same file) replaces it:
			// entries alike in length and first bytes would each be hashed in full.
			memo.entries[i] = e
			return
		}
	}
	memo.entries[memo.next] = e
	memo.next = (memo.next + 1) % len(memo.entries)
}

// substitute returns d with the first remembered string that is a value in it replaced by `""`
// at d[at:], n the length of what it replaced; at < 0 (and d itself) if there is none.
//
// Where the result is valid JSON, reading it is reading d: the bytes before at are the same, so
// a reader is in the same state at at in both; it is not inside a string there (a quote right
// after a string's end is never valid JSON, and an escaped quote is ruled out), so it reads one
// string, which is valid, and goes on in the same state over the same bytes. Only a name could
// read differently (two names could be equal in one and not in the other): one followed by ':'
// is not replaced. Where the result is not valid, readObject reads d itself.
func substitute(d []byte) (sub []byte, at, n int) {
	if len(d) < bigString {
		return d, -1, 0
	}
	memo.Lock()
	entries := memo.entries
	memo.Unlock()
	for _, e := range entries {
		if e.n == 0 || e.n > len(d) {
			continue
		}
		// A text comes near the start of its message, after a name, a path or a tab name:
		// looking further would search the whole of a big message once per entry.
		i := bytes.Index(d[:min(len(d)-e.n, bigString)+len(e.prefix)], []byte(e.prefix))
		if i <= 0 || i+e.n > len(d) || d[i-1] == '\\' || maphash.Bytes(memo.seed, d[i:i+e.n]) != e.h {
			continue
		}
		if rest := trimSpace(d[i+e.n:]); len(rest) > 0 && rest[0] == ':' {
			continue
		}
		sub = append(append(append(make([]byte, 0, len(d)-e.n+2), d[:i]...), `""`...), d[i+e.n:]...)
		return sub, i, e.n
	}
	return d, -1, 0
}
