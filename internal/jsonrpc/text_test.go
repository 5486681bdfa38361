package jsonrpc_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// A file's text crosses the bridge byte for byte: what the editor sent is what Claude gets, and
// decoding it gives the same string encoding/json would.
func TestTextPassesThrough(t *testing.T) {
	for _, s := range []string{"", "plain\n", "tab\tquote\" backslash\\ nl\n", "日本語 \u2028 \U0001F600", "<html>&amp;</html>", "\x00\x1f"} {
		raw, _ := json.Marshal(s)
		var p struct {
			Contents jsonrpc.Text `json:"contents"`
		}
		if err := jsonrpc.UnmarshalParams(json.RawMessage(`{"contents":`+string(raw)+`}`), &p); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got := p.Contents.String(); got != s {
			t.Errorf("String() = %q, want %q", got, s)
		}
		if got := p.Contents.JSON(); string(got) != string(raw) {
			t.Errorf("JSON() = %s, want %s as it came", got, raw)
		}
		if jsonrpc.TextOf(s).String() != s {
			t.Errorf("TextOf(%q) does not round-trip", s)
		}
	}
}

// A non-string is refused like a plain string field: -32602 naming the field.
func TestTextRejectsNonStrings(t *testing.T) {
	for _, v := range []string{`1`, `true`, `{}`, `[]`} {
		var p struct {
			Contents jsonrpc.Text `json:"contents"`
		}
		err := jsonrpc.UnmarshalParams(json.RawMessage(`{"contents":`+v+`}`), &p)
		var rpcErr *jsonrpc.Error
		if e, ok := err.(*jsonrpc.Error); ok {
			rpcErr = e
		}
		if rpcErr == nil || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpcErr.Message, `"contents"`) {
			t.Errorf("%s: err = %v, want -32602 naming contents", v, err)
		}
	}
	var p struct {
		Contents jsonrpc.Text `json:"contents"`
	}
	if err := jsonrpc.UnmarshalParams(json.RawMessage(`{"contents":null}`), &p); err != nil || !p.Contents.IsZero() {
		t.Errorf("null: %v, zero=%v; want absent", err, p.Contents.IsZero())
	}
}

// FuzzUnquote: a Text decodes as jsontext decodes its literal, for every literal the reader
// accepts (text.go decodes by hand, the checks being done): escapes of every kind, surrogate
// pairs, multi-byte UTF-8, text before, between and after escapes.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{``, `plain`, `\n`, `a\tb\"c\\d\/e\bf\fg\rh`, `\u00e9\u00E9x`, `\ud83d\ude00`, `\uD83D\uDE00!`,
		`é日本→`, `\u0000\u001f`, `\\u0041`, `x\u2028y`, "\tif x := f(\\\"h\u00e9llo\\\\n\\\", i)\\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		lit := `"` + body + `"`
		want, err := jsontext.AppendUnquote(nil, lit)
		if err != nil {
			return // the reader refuses it: no Text holds it
		}
		var p struct {
			T jsonrpc.Text `json:"t"`
		}
		if err := jsonrpc.UnmarshalParams([]byte(`{"t":`+lit+`}`), &p); err != nil {
			t.Fatalf("UnmarshalParams refused %s, which jsontext unquotes: %v", lit, err)
		}
		if got := p.T.String(); got != string(want) {
			t.Fatalf("Text(%s).String() = %q, jsontext: %q", lit, got, want)
		}
	})
}
