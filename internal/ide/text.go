package ide

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// Text is a file's content as it travels in JSON: the encoded string literal, kept as it came.
// A proposal or an accepted file crosses the bridge (Claude → editor, editor → Claude) without
// being unescaped and escaped again, which for a 10 MiB file costs more than everything else the
// bridge does with it. It is decoded only where the bridge itself reads the text.
type Text struct{ raw []byte }

// TextOf returns s as a Text.
func TextOf(s string) Text {
	b, _ := json.Marshal(s) // a string always encodes
	return Text{b}
}

// String decodes the text.
func (t Text) String() string {
	var s string
	if len(t.raw) > 0 {
		_ = json.Unmarshal(t.raw, &s) // raw was checked to be a string literal
	}
	return s
}

// IsZero reports whether no text was given (absent or null).
func (t Text) IsZero() bool { return t.raw == nil }

// EncodedLen is the size of the text in a JSON message.
func (t Text) EncodedLen() int { return len(t.raw) }

// MarshalJSON writes the literal as it came.
func (t Text) MarshalJSON() ([]byte, error) {
	if t.raw == nil {
		return []byte(`""`), nil
	}
	return t.raw, nil
}

// AppendJSON writes the literal as it came, a big one by reference (jsonrpc.Appender).
func (t Text) AppendJSON(b *jsonrpc.Builder) error {
	if t.raw == nil {
		b.AppendString(`""`)
		return nil
	}
	b.Ref(t.raw)
	return nil
}

// UnmarshalJSON keeps a copy of the literal; anything but a string (or null) is a type error
// naming the field, like a plain string field's.
func (t *Text) UnmarshalJSON(b []byte) error {
	if err := t.KeepRawJSON(b); err != nil {
		return err
	}
	t.raw = bytes.Clone(t.raw)
	return nil
}

// KeepRawJSON keeps the checked literal b itself (jsonrpc.RawKeeper): a file text arriving in
// params is not copied.
func (t *Text) KeepRawJSON(b []byte) error {
	switch {
	case string(b) == "null":
		return nil
	case len(b) == 0 || b[0] != '"':
		return &json.UnmarshalTypeError{Value: jsonrpc.Kind(b), Type: reflect.TypeOf("")}
	}
	t.raw = b
	return nil
}
