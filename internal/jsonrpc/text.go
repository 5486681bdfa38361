package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"reflect"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Text is a string as it travels in JSON: the encoded literal, kept as it came. A file's text
// crosses the bridge (Claude → editor, editor → Claude) without being unescaped and escaped
// again, which for a 10 MiB file costs more than everything else the bridge does with it; it is
// decoded only where the bridge reads it (String). UnmarshalParams keeps a Text field as the
// slice of params it came in; a layer that sends one puts JSON() into its message as a piece of
// its own (Pieces). The zero Text is the empty string, given by no one (IsZero).
type Text struct{ lit []byte }

// TextOf returns s as a Text.
func TextOf(s string) Text {
	b, _ := json.Marshal(s) // a string always encodes
	return Text{b}
}

// String decodes the text, a literal already checked valid (by the reader, or TextOf's own).
// Written by hand because the checks are done: jsontext.AppendUnquote checks UTF-8 again byte by
// byte and took 42-50 ms for a 10 MiB proposal of source text (~300 MB/s, BenchmarkTextString10MiB),
// the largest cost of `serve --auto` after its answer (issue 27). This copies the spans between
// escapes (bytes.IndexByte) into a builder of the literal's size. FuzzUnquote holds it to
// jsontext's result for every literal jsontext accepts.
func (t Text) String() string {
	s := t.JSON()
	s = s[1 : len(s)-1]
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := bytes.IndexByte(s, '\\')
		if i < 0 {
			b.Write(s)
			return b.String()
		}
		b.Write(s[:i])
		c := s[i+1]
		s = s[i+2:]
		switch c {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r := hex4(s)
			s = s[4:]
			if utf16.IsSurrogate(r) {
				// A checked literal pairs every surrogate (RFC 7493); TextOf's never has one.
				r2 := rune(utf8.RuneError)
				if len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
					r2 = hex4(s[2:])
				}
				if r = utf16.DecodeRune(r, r2); r != utf8.RuneError {
					s = s[6:]
				}
			}
			b.WriteRune(r)
		default: // '"', '\\', '/'
			b.WriteByte(c)
		}
	}
}

// hex4 is the value of the four hex digits that begin s.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// IsZero reports whether no text was given (absent or null).
func (t Text) IsZero() bool { return t.lit == nil }

// EncodedLen is the size of the text in a JSON message.
func (t Text) EncodedLen() int { return len(t.JSON()) }

// JSON returns the literal as it came; the caller must not change it.
func (t Text) JSON() []byte {
	if t.lit == nil {
		return []byte(`""`)
	}
	return t.lit
}

// MarshalJSON writes the literal as it came.
func (t Text) MarshalJSON() ([]byte, error) { return t.JSON(), nil }

// UnmarshalJSON keeps a copy of the literal (encoding/json may reuse its input).
func (t *Text) UnmarshalJSON(b []byte) error { return t.keep(bytes.Clone(b)) }

// keep keeps the checked value b itself; anything but a string (or null) is a type error naming
// the field, like a plain string field's.
func (t *Text) keep(b []byte) error {
	switch {
	case string(b) == "null":
		return nil
	case len(b) == 0 || b[0] != '"':
		return &json.UnmarshalTypeError{Value: kindNames[jsontext.Value(b).Kind()], Type: reflect.TypeFor[string]()}
	}
	t.lit = b
	return nil
}

// Pieces is params or a result already encoded as JSON, in pieces: written as they are, a big
// piece (a Text's JSON) from where it is, not copied into one buffer. Copying a 13 MB text into
// a fresh buffer costs 4-10 ms here (its pages are faulted in anew), more than the bridge's
// remaining work on it.
type Pieces net.Buffers

// refMin is the least piece kept apart rather than copied into its neighbours: below it a copy
// is cheaper than a piece of its own (another frame on a WebSocket, another write(2) on a pipe).
const refMin = 64 << 10

// PiecesWriter is implemented by a Stream that writes a message given in pieces as one message
// (a vectored write on a pipe, frames of one message on a WebSocket). Conn joins the pieces for a
// Stream without it.
type PiecesWriter interface {
	WritePieces(ctx context.Context, msg net.Buffers) error
}

// writeMsg writes msg to s in one piece or, when s can, in several.
func writeMsg(ctx context.Context, s Stream, msg net.Buffers) error {
	if pw, ok := s.(PiecesWriter); ok && len(msg) > 1 {
		return pw.WritePieces(ctx, msg)
	}
	return s.Write(ctx, bytes.Join(msg, nil))
}
