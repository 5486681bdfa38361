package jsonrpc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math/bits"
	"slices"
	"sync"
	"unicode/utf8"
)

// A scanner that validates JSON and finds where each value ends, in one pass.
//
// Hand-written because encoding/json validates the whole input again at every Unmarshal (and
// once more in every Marshaler's output): a 10 MiB openDiff met that scanner about ten times on
// its way through the bridge, at ~100 MB/s each. Here a message is scanned once per layer that
// looks at it, and strings (nearly all of a big message) are skipped eight bytes at a time.
// Unlike encoding/json it refuses invalid UTF-8 (checked per string: everywhere else a byte
// over 0x7f is a syntax error anyway).

// errSyntax is wrapped by every error of the scanner.
var errSyntax = errors.New("not valid JSON")

// errDepth reports nesting deeper than maxDepth.
var errDepth = fmt.Errorf("%w: nesting deeper than %d", errSyntax, maxDepth)

func syntaxErr(d []byte, i int, what string) error {
	if i >= len(d) {
		return fmt.Errorf("%w: unexpected end of input (%s)", errSyntax, what)
	}
	return fmt.Errorf("%w: %s at offset %d, found %q", errSyntax, what, i, d[i])
}

func skipSpace(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// trimSpace drops JSON white space (RFC 8259 §2) from both ends.
func trimSpace(d []byte) []byte {
	d = d[skipSpace(d, 0):]
	for len(d) > 0 {
		switch d[len(d)-1] {
		case ' ', '\t', '\n', '\r':
			d = d[:len(d)-1]
		default:
			return d
		}
	}
	return d
}

// scanValue checks the value starting at d[i] (no leading space) and returns the index just
// after it. depth is the nesting of the enclosing container (0 at top level).
func scanValue(d []byte, i, depth int, st *keyState) (int, error) {
	if i >= len(d) {
		return i, syntaxErr(d, i, "want a value")
	}
	switch c := d[i]; c {
	case '"':
		return scanString(d, i)
	case '{':
		return scanObject(d, i, depth+1, st, nil)
	case '[':
		return scanArray(d, i, depth+1, st)
	case 't':
		return scanLiteral(d, i, "true")
	case 'f':
		return scanLiteral(d, i, "false")
	case 'n':
		return scanLiteral(d, i, "null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return scanNumber(d, i)
		}
		return i, syntaxErr(d, i, "want a value")
	}
}

func scanLiteral(d []byte, i int, lit string) (int, error) {
	if len(d)-i < len(lit) || string(d[i:i+len(lit)]) != lit {
		return i, syntaxErr(d, i, "want "+lit)
	}
	return i + len(lit), nil
}

// scanNumber follows RFC 8259 §6: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?
func scanNumber(d []byte, i int) (int, error) {
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(d, i+1)
	default:
		return i, syntaxErr(d, i, "want a digit")
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			return j, syntaxErr(d, j, "want a digit after '.'")
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			return j, syntaxErr(d, j, "want a digit in the exponent")
		}
		i = j
	}
	return i, nil
}

func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specials flags (with the byte's high bit) each of the eight bytes of w that ends or escapes a
// string or is a control character: '"', '\\', anything below 0x20. Bit tricks from "Bit
// Twiddling Hacks" (haszero, hasless); the lowest flag is always exact (a borrow only flags bytes
// above a true one), which is all scanString uses. Bytes >= 0x80 are never flagged.
func specials(w uint64) uint64 {
	q := w ^ (ones * '"')
	b := w ^ (ones * '\\')
	return ((q-ones)&^q | (b-ones)&^b | (w-ones*0x20)&^w) & highs
}

// scanString checks the string starting at the quote d[i] and returns the index after its
// closing quote.
func scanString(d []byte, i int) (int, error) {
	if len(d)-i < bigString {
		return checkString(d, i)
	}
	// Even in a big message most strings are short: one that ends within bigString bytes is
	// checked as it is (looking it up would hash a remembered length of bytes for nothing).
	if j, st := stringBody(d[:i+bigString], i+1); st != strShort {
		return stringResult(d, i, j, st)
	}
	if end, ok := seenAt(d, i); ok {
		return end, nil
	}
	end, err := checkString(d, i)
	if err == nil {
		rememberBig(maphash.Bytes(bigSeed, d[i:end]), end-i)
	}
	return end, err
}

// A file text crosses several layers that each scan their message: JSON-RPC, MCP's tools/call,
// the tool's arguments, and the editor's accept brings the same text back. Strings of at least
// bigString bytes found valid are remembered by length and a seeded 64-bit hash of their bytes
// (maphash), so the next scan of the same text only hashes it (~8 GB/s here) instead of checking
// it again (~0.6 GB/s on escape-heavy source). A string that differs in any byte hashes
// differently and is checked in full.
const bigString = 64 << 10

var (
	bigSeed = maphash.MakeSeed()
	bigMu   sync.Mutex
	bigSeen [8]bigEntry
	bigNext int
)

type bigEntry struct {
	h uint64
	n int // length with both quotes; 0: unused
}

// seenAt reports whether d[i:] begins with a remembered valid string, and where that ends. No
// search for the end is needed: the n bytes at d[i] that hash like a remembered string of n
// bytes are that string, quotes included, so it ends there. Only lengths that would end on a
// quote are hashed, each once.
func seenAt(d []byte, i int) (end int, ok bool) {
	bigMu.Lock()
	seen := bigSeen
	bigMu.Unlock()
	for k, e := range seen {
		if e.n == 0 || e.n > len(d)-i || d[i+e.n-1] != '"' || slices.ContainsFunc(seen[:k], func(f bigEntry) bool { return f.n == e.n }) {
			continue
		}
		if slices.Contains(seen[k:], bigEntry{maphash.Bytes(bigSeed, d[i:i+e.n]), e.n}) {
			return i + e.n, true
		}
	}
	return 0, false
}

func rememberBig(h uint64, n int) {
	bigMu.Lock()
	defer bigMu.Unlock()
	bigSeen[bigNext] = bigEntry{h, n}
	bigNext = (bigNext + 1) % len(bigSeen)
}

// checkString checks the string starting at the quote d[i], every byte of it.
func checkString(d []byte, i int) (int, error) {
	j, st := stringBody(d, i+1)
	return stringResult(d, i, j, st)
}

// stringResult is checkString's answer for the string at d[i] on which stringBody stopped at j.
func stringResult(d []byte, i, j int, st strStatus) (int, error) {
	switch st {
	case strEnd:
		return j + 1, nil
	case strShort:
		return len(d), syntaxErr(d, len(d), "unterminated string")
	case strCtl:
		return j, syntaxErr(d, j, "control character in string")
	case strEscape:
		return j + 1, syntaxErr(d, j+1, "invalid escape")
	case strHex:
		return j + 2, syntaxErr(d, j+2, `want four hex digits after \u`)
	}
	// RFC 8259 §8.1: JSON text is UTF-8. Strings are the only place other bytes than ASCII can
	// pass the syntax; encoding/json would let invalid UTF-8 through.
	return i, fmt.Errorf("%w: string at offset %d is not valid UTF-8", errSyntax, i)
}

// strStatus says where stringBody stopped.
type strStatus uint8

const (
	strEnd    strStatus = iota // at the closing quote
	strShort                   // the input ends there, or cuts the escape or character there
	strCtl                     // a control character
	strEscape                  // a backslash before a byte no escape begins with
	strHex                     // \u without four hex digits
	strUTF8                    // a byte sequence that is not UTF-8
)

// stringBody checks a string's content from d[i] up to its closing quote, in one pass: ASCII
// without specials eight bytes at a time, escapes by table, and each multi-byte UTF-8 character
// where it is met (a file text is mostly ASCII with a few per line; a second pass with
// utf8.Valid over the whole text cost as much as this one). It returns where it stopped and why.
func stringBody(d []byte, i int) (int, strStatus) {
	n := len(d)
	for {
		for i+8 <= n {
			w := binary.LittleEndian.Uint64(d[i:])
			// The lowest flag is exact (specials' false flags lie above a true one).
			if m := specials(w) | w&highs; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= n {
			return i, strShort
		}
		c := d[i]
		switch {
		case c == '\\': // the most common special in a file text: \n, \t, \", \u003c
			if i+1 >= n {
				return i, strShort
			}
			switch escapeLen[d[i+1]] {
			case 2:
				i += 2
			case 6:
				if i+6 > n {
					return i, strShort
				}
				if !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) || !isHex(d[i+5]) {
					return i, strHex
				}
				i += 6
			default:
				return i, strEscape
			}
		case c == '"':
			return i, strEnd
		case c < 0x20:
			return i, strCtl
		case c < utf8.RuneSelf:
			i++ // the tail shorter than a word
		default: // RFC 3629, as utf8.Valid: no overlong forms, no surrogates, nothing above U+10FFFF
			if !utf8.FullRune(d[i:]) {
				return i, strShort // cut by the end of d; maybe a character, maybe not
			}
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				return i, strUTF8
			}
			i += size
		}
	}
}

// escapeLen is the length of each escape by the byte after its backslash (0: invalid).
var escapeLen = func() (t [256]uint8) {
	for _, c := range `"\\/bfnrt` {
		t[c] = 2
	}
	t['u'] = 6
	return t
}()

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func scanArray(d []byte, i, depth int, st *keyState) (int, error) {
	if depth > maxDepth {
		return i, errDepth
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == ']' {
		return i + 1, nil
	}
	for {
		var (
			err  error
			done bool
		)
		if i, err = scanValue(d, i, depth, st); err != nil {
			return i, err
		}
		if i, done, err = afterItem(d, i, ']'); done || err != nil {
			return i, err
		}
	}
}

// afterItem steps over what follows an element of a container: at ',' it returns where the
// next element starts, at the closing byte the index after the container (done).
func afterItem(d []byte, i int, closing byte) (int, bool, error) {
	i = skipSpace(d, i)
	if i < len(d) {
		switch d[i] {
		case ',':
			return skipSpace(d, i+1), false, nil
		case closing:
			return i + 1, true, nil
		}
	}
	return i, false, syntaxErr(d, i, "want ',' or '"+string(closing)+"'")
}

// scanObject checks the object starting at d[i]. If member is non-nil it is called with each
// key (the raw literal, quotes included) and value (raw) as soon as the value is checked; an
// error from it stops the scan and is returned as is. A key that repeats an earlier key of the
// same object (compared exactly, after unescaping) is recorded in st, and the scan goes on: a
// syntax error anywhere still comes first.
func scanObject(d []byte, i, depth int, st *keyState, member func(key, value []byte) error) (int, error) {
	if depth > maxDepth {
		return i, errDepth
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1, nil
	}
	var (
		small [8][]byte // the names so far; most objects have a few
		names = small[:0]
		many  map[string]struct{} // past len(small)
	)
	for {
		if i >= len(d) || d[i] != '"' {
			return i, syntaxErr(d, i, "want a member name")
		}
		k := i
		var err error
		if i, err = scanString(d, i); err != nil {
			return i, err
		}
		key := d[k:i]
		if name := memberName(key); many != nil {
			if _, dup := many[string(name)]; dup {
				st.duplicate(name, depth)
			}
			many[string(name)] = struct{}{}
		} else if slices.ContainsFunc(names, func(n []byte) bool { return string(n) == string(name) }) {
			st.duplicate(name, depth)
		} else if len(names) < cap(names) {
			names = append(names, name)
		} else {
			many = make(map[string]struct{}, 2*len(names))
			for _, n := range names {
				many[string(n)] = struct{}{}
			}
			many[string(name)] = struct{}{}
		}
		i = skipSpace(d, i)
		if i >= len(d) || d[i] != ':' {
			return i, syntaxErr(d, i, "want ':'")
		}
		i = skipSpace(d, i+1)
		v := i
		if i, err = scanValue(d, i, depth, st); err != nil {
			return i, err
		}
		if member != nil {
			if err := member(key, d[v:i]); err != nil {
				return i, err
			}
		}
		var done bool
		if i, done, err = afterItem(d, i, '}'); done || err != nil {
			return i, err
		}
	}
}

// keyState records the shallowest duplicate key a scan met (RFC 8259 §4: "The names within an
// object SHOULD be unique"; encoding/json lets the last one win, which lets a message read one
// way in a log and another way where it runs). A nil *keyState records nothing.
type keyState struct {
	dup   string // the key, unescaped
	depth int    // the nesting of its object (1: the scanned object itself); 0: none found
}

func (st *keyState) duplicate(name []byte, depth int) {
	if st != nil && (st.depth == 0 || depth < st.depth) {
		st.dup, st.depth = string(name), depth
	}
}

// valid reports whether d is exactly one JSON value, surrounded by nothing but white space.
func valid(d []byte, st *keyState) error {
	i := skipSpace(d, 0)
	i, err := scanValue(d, i, 0, st)
	if err != nil {
		return err
	}
	if i = skipSpace(d, i); i != len(d) {
		return syntaxErr(d, i, "want the end after the top-level value")
	}
	return nil
}

// eachMember checks that d is one JSON object (white space around it allowed) and calls member
// for every member in order. Syntax errors wrap errSyntax; member's errors are returned as is;
// duplicate keys are recorded in st.
func eachMember(d []byte, st *keyState, member func(key, value []byte) error) error {
	i := skipSpace(d, 0)
	if i >= len(d) || d[i] != '{' {
		return syntaxErr(d, i, "want an object")
	}
	i, err := scanObject(d, i, 1, st, member)
	if err != nil {
		return err
	}
	if i = skipSpace(d, i); i != len(d) {
		return syntaxErr(d, i, "want the end after the object")
	}
	return nil
}
