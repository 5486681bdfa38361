package jsonrpc

import (
	"bytes"
	"errors"
	"hash/maphash"
	"io"
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

// readObject checks that d is exactly one JSON object (white space around it allowed) and
// returns its members in order. With dups a name may repeat (the caller reports it elsewhere).
// Big objects among the values, at any depth, are remembered with their members (below).
func readObject(d []byte, dups bool) ([]member, error) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(d), jsontext.AllowDuplicateNames(dups))
	if dec.PeekKind() != '{' {
		if err := dec.SkipValue(); err != nil {
			return nil, err
		}
		return nil, errors.New("jsontext: want an object")
	}
	ms, err := walkObject(dec, d, !dups)
	if err == nil {
		err = end(dec)
	}
	return ms, err
}

// walkObject reads the object at dec's next token; d is dec's whole input. An object value
// that may be big (more than bigObject bytes of input are left) is walked the same way, so
// that the next layer finds its members in the memo; others are read whole by jsontext.
func walkObject(dec *jsontext.Decoder, d []byte, keep bool) ([]member, error) {
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	var ms []member
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		m := member{name: name.String()}
		if start := int(dec.InputOffset()); dec.PeekKind() == '{' && len(d)-start >= bigObject {
			sub, err := walkObject(dec, d, keep)
			if err != nil {
				return nil, err
			}
			m.value = bytes.TrimLeft(d[start:dec.InputOffset()], " \t\r\n:")
			if keep && len(m.value) >= bigObject {
				remember(m.value, sub)
			}
		} else {
			v, err := dec.ReadValue()
			if err != nil {
				return nil, err
			}
			end := int(dec.InputOffset())
			m.value = d[end-len(v) : end]
		}
		ms = append(ms, m)
	}
	_, err := dec.ReadToken()
	return ms, err
}

// A file text crosses several layers that each read their message: JSON-RPC, MCP's tools/call,
// the tool's arguments. Each layer but the first gets an object the one before checked whole
// (params, then arguments), and jsontext checks a 10 MiB text at ~0.3 GB/s. So an object of at
// least bigObject bytes that was read without fault is remembered by length and a seeded 64-bit
// hash of its bytes (maphash), with where its members are: the next layer that reads the same
// bytes only hashes them (~8 GB/s here). Bytes that differ in any way hash differently and are
// read in full.
const bigObject = 64 << 10

var memo struct {
	sync.Mutex
	seed    maphash.Seed
	entries [8]memoEntry
	next    int
}

func init() { memo.seed = maphash.MakeSeed() }

type memoEntry struct {
	h       uint64
	n       int // the object's length; 0: unused
	members []memberAt
}

// memberAt is a remembered member: its value is obj[off:off+n].
type memberAt struct {
	name   string
	off, n int
}

func remember(obj []byte, ms []member) {
	e := memoEntry{h: maphash.Bytes(memo.seed, obj), n: len(obj), members: make([]memberAt, len(ms))}
	for i, m := range ms {
		// m.value is a slice of obj: their capacities differ by its offset.
		e.members[i] = memberAt{m.name, cap(obj) - cap(m.value), len(m.value)}
	}
	memo.Lock()
	defer memo.Unlock()
	memo.entries[memo.next] = e
	memo.next = (memo.next + 1) % len(memo.entries)
}

// recall returns the members of d if d is a remembered object.
func recall(d []byte) ([]member, bool) {
	if len(d) < bigObject {
		return nil, false
	}
	h := maphash.Bytes(memo.seed, d)
	memo.Lock()
	defer memo.Unlock()
	for _, e := range memo.entries {
		if e.n == len(d) && e.h == h {
			ms := make([]member, len(e.members))
			for i, m := range e.members {
				ms[i] = member{m.name, d[m.off : m.off+m.n]}
			}
			return ms, true
		}
	}
	return nil, false
}
