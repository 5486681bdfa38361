package jsonrpc

import (
	"bytes"
	"cmp"
	"errors"
	"hash/maphash"
	"io"
	"reflect"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// JSON is read with jsontext (github.com/go-json-experiment/json, the mirror of Go 1.27's
// encoding/json/v2): by default it checks what RFC 7493 (I-JSON) asks, which is the reader's
// strictness: the syntax, UTF-8 in every string, and no name twice in one object at any depth
// (jsontext.ErrDuplicateName, with the JSON pointer of the member). Fed a *bytes.Buffer it reads
// the input in place, so the members found are slices of it, never copies.

// errTrailing is a second value after the one expected.
var errTrailing = errors.New("jsontext: invalid data after top-level value")

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
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			err = errTrailing
		}
		return err
	}
	return nil
}

// readObject checks that d is exactly one JSON object (white space around it allowed), to be
// decoded into a value of type t, and returns its members in order. With dups a name may repeat
// (the caller reports it elsewhere). A member name that matches no field of a struct t (at any
// depth) exactly but one when case is ignored is a *keyError, after any syntax or duplicate
// error. A remembered big string in d (below) is not read again.
func readObject(d []byte, t reflect.Type, dups bool) ([]member, error) {
	sub, at, n := substitute(d)
	ms, err := readMembers(sub, t, dups)
	if err != nil && at >= 0 {
		return readMembers(d, t, dups) // the error, or the rare valid input where sub is not
	}
	seen := map[string]bool{} // with dups: names may repeat below the outermost object only
	for i, m := range ms {
		if seen[m.name] {
			return nil, &keyError{key: m.name, err: jsontext.ErrDuplicateName}
		}
		seen[m.name] = dups
		// The same bytes in d:
		start := cap(sub) - cap(m.value) // m.value is a slice of sub
		end := start + len(m.value)
		if at >= 0 && end > at {
			end += n - 2
			if start > at {
				start += n - 2
			}
		}
		ms[i].value = d[start:end]
	}
	return ms, err
}

func readMembers(d []byte, t reflect.Type, dups bool) ([]member, error) {
	w := walker{dec: jsontext.NewDecoder(bytes.NewBuffer(d), jsontext.AllowDuplicateNames(dups)), d: d}
	ms, err := w.object(t)
	if err == nil {
		err = end(w.dec)
	}
	if err == nil {
		err = w.first
	}
	return ms, err
}

// walker reads one JSON value with jsontext, token by token where it needs to.
type walker struct {
	dec   *jsontext.Decoder
	d     []byte // dec's input
	first error  // the first member name in the wrong case
}

// value reads the value at the next token, to be decoded into a value of type t (nil: not
// decoded). An object or array is read token by token where it has names to check or may hold a
// big string (bigString bytes of input are left), which is remembered; else whole, by jsontext.
func (w *walker) value(t reflect.Type) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	k, big := w.dec.PeekKind(), len(w.d)-int(w.dec.InputOffset()) >= bigString
	switch {
	case k == '{' && (big || t != nil && (t.Kind() == reflect.Struct || t.Kind() == reflect.Map)):
		_, err := w.object(t)
		return err
	case k == '[' && (big || t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array)):
		if t != nil && t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			t = nil
		}
		if _, err := w.dec.ReadToken(); err != nil {
			return err
		}
		for w.dec.PeekKind() != ']' {
			if err := w.value(elem(t)); err != nil {
				return err
			}
		}
		_, err := w.dec.ReadToken()
		return err
	}
	v, err := w.dec.ReadValue()
	if end := int(w.dec.InputOffset()); err == nil && len(v) >= bigString && v[0] == '"' {
		remember(w.d[end-len(v) : end])
	}
	return err
}

// object reads the object at the next token and returns its members (see value).
func (w *walker) object(t reflect.Type) ([]member, error) {
	if tok, err := w.dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, cmp.Or(err, error(&jsontext.SyntacticError{Err: errors.New("want an object")}))
	}
	fs := fieldsOf(t)
	var ms []member
	for w.dec.PeekKind() != '}' {
		name, err := w.dec.ReadToken()
		if err != nil {
			return nil, err
		}
		m := member{name: name.String()}
		var mt reflect.Type // the member's type, nil if it is not decoded
		if fs != nil {
			f, err := fs.lookup(m.name)
			if ke, ok := err.(*keyError); ok && w.first == nil {
				ke.in = path(w.dec.StackPointer().Parent())
				w.first = ke
			}
			if f != nil {
				mt = f.typ
			}
		} else if t != nil && t.Kind() == reflect.Map {
			mt = t.Elem()
		}
		start := int(w.dec.InputOffset())
		if err := w.value(mt); err != nil {
			return nil, err
		}
		m.value = bytes.TrimLeft(w.d[start:w.dec.InputOffset()], " \t\r\n:")
		ms = append(ms, m)
	}
	_, err := w.dec.ReadToken()
	return ms, err
}

func elem(t reflect.Type) reflect.Type {
	if t == nil {
		return nil
	}
	return t.Elem()
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
