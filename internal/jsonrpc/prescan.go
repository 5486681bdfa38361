package jsonrpc

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"unicode/utf8"
)

// PrescanFrom is the length from which a message is worth feeding to a Prescan: a shorter one
// holds no string the big-string cache (scan.go) would remember.
const PrescanFrom = 64 << 10

// Prescan checks the strings of a message while it is still arriving, so that checking the
// 13 MB of a file text (~20 ms) overlaps its transfer instead of following it. A string of at
// least bigString bytes that ends valid is remembered by length and hash like scanString
// remembers it (rememberBig), and the full scan of the whole message then only hashes it.
//
// It lexes strings only: outside a string it looks for the next '"', inside one it checks
// exactly what checkString checks. It does not follow the JSON structure, so in invalid JSON it
// may take the inside of a string for the outside and the reverse; that is harmless, because
// whatever it remembers is a byte sequence, quotes included, that checkString accepts: the full
// scan finds any other error itself. On anything a string may not hold it stops remembering for
// this message.
//
// The zero Prescan is ready for one message. Not for concurrent use; Feed does not allocate.
type Prescan struct {
	off     int    // d[:off] is done; off is the next byte to look at
	in      bool   // off is inside the string opened at start
	stopped bool   // something invalid was found: nothing more is remembered
	start   int    // the opening quote of the current string
	hashed  int    // d[start:hashed] has been written to h
	u8      int    // d[u8:off] of the current string is not checked as UTF-8 yet
	high    uint64 // the high bits of the bytes of d[u8:off] (a superset)
	h       maphash.Hash
}

// Feed continues over d: d holds every byte fed before, unchanged (possibly in a new, grown
// buffer), plus the bytes that arrived since. Offsets are kept, never pointers into d. An escape
// or a UTF-8 sequence cut by the end of d is looked at again on the next Feed.
func (p *Prescan) Feed(d []byte) {
	if p.stopped {
		return
	}
	if len(d) < p.off { // not the same message: misuse, remember nothing from it
		p.stopped = true
		return
	}
	i, high := p.off, p.high
loop:
	for {
		if !p.in {
			k := bytes.IndexByte(d[i:], '"')
			if k < 0 {
				i = len(d)
				break
			}
			i += k
			p.in, p.start, p.hashed, p.u8, high = true, i, i, i+1, 0
			p.h.SetSeed(bigSeed) // also empties it; Bytes(bigSeed, b) hashes alike
			i++
		}
		// As in checkString: eight bytes at a time up to the next special byte.
		for i+8 <= len(d) {
			w := binary.LittleEndian.Uint64(d[i:])
			high |= w
			if m := specials(w); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(d) {
			break
		}
		switch c := d[i]; {
		case c == '\\':
			if i+1 >= len(d) {
				break loop // the escape goes on in the next Feed
			}
			switch escapeLen[d[i+1]] {
			case 2:
				i += 2
			case 6:
				if i+6 > len(d) {
					break loop
				}
				if !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) || !isHex(d[i+5]) {
					p.stopped = true
					return
				}
				i += 6
			default:
				p.stopped = true
				return
			}
		case c == '"':
			if high&highs != 0 && !utf8.Valid(d[p.u8:i]) {
				p.stopped = true
				return
			}
			if n := i + 1 - p.start; n >= bigString {
				p.h.Write(d[p.hashed : i+1])
				rememberBig(p.h.Sum64(), n)
			}
			p.in = false
			i++
		case c < 0x20:
			p.stopped = true
			return
		default: // the tail shorter than a word
			high |= uint64(c)
			i++
		}
	}
	p.off = i
	if !p.in {
		return
	}
	// Check the UTF-8 of the string so far, up to a sequence the end of d may have cut: its
	// lead byte is among the last three (an ASCII byte never continues a sequence).
	cut := i
	for k := 1; k <= 3 && i-k >= p.u8; k++ {
		if c := d[i-k]; c < 0x80 {
			break
		} else if c >= 0xc0 {
			cut = i - k
			break
		}
	}
	if high&highs != 0 && !utf8.Valid(d[p.u8:cut]) {
		p.stopped = true
		return
	}
	p.u8, p.high = cut, 0
	if cut < i {
		p.high = highs
	}
	p.h.Write(d[p.hashed:i])
	p.hashed = i
}
