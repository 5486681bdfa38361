package jsonrpc

import (
	"sync"
	"unsafe"
	"weak"
)

// span is a string's place in a message: the offset of its opening quote and its length with
// both quotes.
type span struct{ Off, Len int }

// Seal declares that msg is never modified again, by anyone. The bridge's readers seal each big
// message they return: the bridge only reads messages, and Decode, UnmarshalParams and ide.Text
// keep slices of them. A big string found valid inside a sealed message is then known by its
// place, so the next layer that scans the same bytes (MCP's tools/call, the tool's arguments,
// the editor's accept's params) steps over its 13 MB without hashing them again (~1.7 ms each).
// Small messages are ignored.
func Seal(msg []byte) {
	if len(msg) < bigString {
		return
	}
	sealMu.Lock()
	defer sealMu.Unlock()
	s := &seals[sealNext]
	sealNext = (sealNext + 1) % len(seals)
	*s = sealed{base: weak.Make(&msg[0]), n: len(msg)}
}

// sealed is a sealed message, held by a weak pointer: while the message lives, Value returns it;
// once it is collected, nil, so memory allocated again at its address is never taken for it.
type sealed struct {
	base weak.Pointer[byte]
	n    int
	ok   [4]span // big strings found valid in it
	next int
}

func (s *sealed) add(c span) {
	s.ok[s.next] = c
	s.next = (s.next + 1) % len(s.ok)
}

var (
	sealMu   sync.Mutex
	seals    [8]sealed
	sealNext int
)

// sealedAt returns the sealed message d[i] lies in and d[i]'s offset in it. The caller holds
// sealMu. Addresses are compared only while both objects are held (the collector does not
// move objects); d itself need not be a heap object.
func sealedAt(d []byte, i int) (*sealed, int) {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(d))) + uintptr(i)
	for k := range seals {
		s := &seals[k]
		b := s.base.Value()
		if b == nil {
			continue
		}
		if lo := uintptr(unsafe.Pointer(b)); p >= lo && p < lo+uintptr(s.n) {
			return s, int(p - lo)
		}
	}
	return nil, 0
}

// placedAt reports whether a string found valid starts at d[i] in a sealed message and ends
// within d, and where it ends.
func placedAt(d []byte, i int) (int, bool) {
	sealMu.Lock()
	defer sealMu.Unlock()
	s, off := sealedAt(d, i)
	if s == nil {
		return 0, false
	}
	for _, c := range s.ok {
		if c.Off == off && c.Len > 0 && c.Len <= len(d)-i {
			return i + c.Len, true
		}
	}
	return 0, false
}

// place notes that d[i:end] is a valid string, if d lies in a sealed message.
func place(d []byte, i, end int) {
	sealMu.Lock()
	defer sealMu.Unlock()
	if s, off := sealedAt(d, i); s != nil && off+end-i <= s.n {
		s.add(span{off, end - i})
	}
}
