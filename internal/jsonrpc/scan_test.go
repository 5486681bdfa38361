package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// scanCases are inputs on which a hand-written JSON scanner is easy to get wrong: escapes across
// the 8-byte words it skips at a time, control characters, numbers, nesting.
var scanCases = []string{
	`""`, `"a"`, `"abcdefgh"`, `"abcdefghi"`, `"abcdefg\""`, `"abcdefgh\\"`, `"abcdefg\\\""`,
	`"\u00e9\ud83d\ude00"`, `"\u12"`, `"\u12g4"`, `"\x"`, `"\/\b\f\n\r\t"`, "\"tab\there\"",
	"\"a\x1fb\"", "\"a\x7fb\"", "\"é ✻ 😀 \xff\"", `"unterminated`, `"ends in escape\`,
	strings.Repeat("a", 7) + `"`, `"` + strings.Repeat("x", 64) + `"`, `"` + strings.Repeat(`\"`, 9) + `"`,
	`0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e`, `1e+`, `-12.34e-56`, `1.e3`, `+1`,
	`true`, `tru`, `false`, `null`, `nul`, `nulls`, `TRUE`,
	`{}`, `{ }`, `[]`, `[ ]`, `[1,]`, `[,1]`, `[1 2]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":}`,
	`{"a":1}}`, `{"a":[1,{"b":[null,true,"x"]}],"c":{}}`, ` {"a" : 1 } `, "\t\r\n[]\n",
	``, ` `, `{`, `[`, `]`, `}`, `{"a":1} {}`, `1 2`, `"a" "b"`, `{"\u0000":0}`,
	`[` + strings.Repeat(`[`, 255) + strings.Repeat(`]`, 256),
	// Invalid UTF-8 where the ASCII-only shortcut could miss it: in a word, in the tail, after
	// an escape, after a long ASCII run.
	"\"" + strings.Repeat("a", 20) + "\xff" + strings.Repeat("b", 20) + "\"", "\"abc\\n\xff\"", "\"\xc3\"",
	"\"" + strings.Repeat("a", 31) + "\xe6\x97\"", "\"\\u0041\xf0\x9f\x98\"",
	// Multi-byte characters are checked where the 8-byte scan meets them: across a word's end,
	// before and after a special in the same word, surrogates and overlong forms refused.
	"\"aaaaaa\xc3\xa9bbbbbbbb\"", "\"aaaaaaa\xe2\x9c\xbb\"", "\"\xc3\xa9\x01\"", "\"\x01\xc3\xa9\"", "\"\xc3\xa9\\n\xc3\xa9\"",
	"\"\xed\xa0\x80\"", "\"\xc0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xef\xbf\xbd\"", "\"aaaaaaa\xc3\"", "\"\xc3\xa9",
}

// TestScanAgreesWithEncodingJSON: the bridge's scanner accepts exactly what encoding/json
// accepts (RFC 8259), up to the nesting bound.
func TestScanAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range scanCases {
		got := jsonrpc.Valid([]byte(in)) == nil
		want := json.Valid([]byte(in)) && utf8.ValidString(in) // RFC 8259 §8.1: UTF-8 only
		if got != want {
			t.Errorf("scan(%q) valid = %v, encoding/json says %v (%v)", in, got, want, jsonrpc.Valid([]byte(in)))
		}
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range scanCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := jsonrpc.Valid(data)
		if !utf8.Valid(data) {
			if err == nil {
				t.Fatalf("scan(%q) accepted invalid UTF-8", data)
			}
			return // encoding/json lets invalid UTF-8 in strings through
		}
		if strings.Contains(string(data), strings.Repeat("[", 250)) || strings.Contains(string(data), strings.Repeat("{", 250)) {
			return // deep nesting: refused by design, accepted by encoding/json
		}
		if want := json.Valid(data); (err == nil) != want {
			t.Fatalf("scan(%q) = %v, encoding/json valid = %v", data, err, want)
		}
	})
}

// paramsProbe has a field of every kind the bridge's params use.
type paramsProbe struct {
	Path    string          `json:"filePath"`
	Line    *int            `json:"lineStart"`
	Flag    bool            `json:"preview"`
	List    []string        `json:"folders"`
	Raw     json.RawMessage `json:"arguments"`
	Num     json.Number     `json:"pid"`
	Nested  struct{ A, B int }
	Skipped string `json:"-"`
	Plain   string
	Small   uint8   `json:"small"`
	Ratio   float64 `json:"ratio"`
	F32     float32 `json:"f32"`
	Neg     int8    `json:"neg"`
	Kind    named   `json:"kind"`
	Range   *struct {
		Start struct {
			Line      int  `json:"line"`
			Character int  `json:"character"`
			Empty     bool `json:"isEmpty"`
		} `json:"start"`
	} `json:"range"`
	Any  any               `json:"any"`
	Map  map[string]string `json:"map"`
	When *json.Number      `json:"when"`
}

type named string

// FuzzUnmarshalParams: UnmarshalParams decodes as encoding/json does (the oracle), except that
// it refuses a duplicate key at any level (found by encoding/json's own tokenizer) and a member
// name that matches a field only when case is ignored.
func FuzzUnmarshalParams(f *testing.F) {
	for _, s := range []string{
		`{"filePath":"/a/b","lineStart":3,"preview":true,"folders":["x","y"],"arguments":{"k":[1]},"pid":42}`,
		`{"filePath":"\u00e9\n","FILEPATH":"dup","Nested":{"A":1,"b":2},"plain":"p","-":"x","Skipped":"y"}`,
		`{"filePath":3}`, `{"lineStart":"9"}`, `{"preview":"yes"}`, `{"folders":"a"}`, `{"Nested":[]}`,
		`{"arguments":null,"lineStart":null,"filePath":null}`, `{"filePath":"a"`, `{"pid":"7"}`,
		"{\"filePath\":\"\xff\"}", `{"a":1,"a":2}`, `{}`, `{"x":{"a":1,"\u0061":2}}`, `{"any":[{"k":1,"k":2}]}`,
		`{"small":255,"ratio":-1.5e3,"f32":3.4e38,"neg":-128,"kind":"k","range":{"start":{"line":3,"character":-1,"isEmpty":true}}}`,
		`{"small":256}`, `{"small":-1}`, `{"neg":1.0}`, `{"f32":1e39}`, `{"ratio":"1"}`, `{"range":null}`, `{"range":{"start":null}}`,
		`{"range":{"start":{"line":"x"}}}`, `{"range":[]}`, `{"any":[1,{"a":null}],"map":{"a":"b"},"when":12}`, `{"kind":7}`, `{"preview":null,"lineStart":7}`,
		`{"range":{"START":{"line":1}}}`, `{"arguments":{"a":1,"a":2}}`, `{"map":{"A":"1","a":"2"}}`,
	} {
		f.Add([]byte(s))
	}
	names := probeNames(reflect.TypeFor[paramsProbe](), map[string]bool{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || data[0] != '{' || !utf8.Valid(data) {
			return
		}
		var fast, slow paramsProbe
		errFast := jsonrpc.UnmarshalParams(data, &fast)
		errSlow := json.Unmarshal(data, &slow)
		keys, dups, ok := oracleKeys(data)
		if !ok {
			return // not JSON: encoding/json decides alone (below)
		}
		if len(dups) > 0 {
			if errFast == nil || !strings.Contains(errFast.Error(), "duplicate key") {
				t.Fatalf("UnmarshalParams(%q) = %v, want a duplicate key refused (%q)", data, errFast, dups)
			}
			return
		}
		for _, k := range keys {
			for n := range names {
				if k != n && strings.EqualFold(k, n) {
					return // a name in the wrong case: see TestParamsNamesExact
				}
			}
		}
		if (errFast == nil) != (errSlow == nil) {
			t.Fatalf("UnmarshalParams(%q) = %v, encoding/json: %v", data, errFast, errSlow)
		}
		if errFast == nil && !reflect.DeepEqual(fast, slow) {
			t.Fatalf("UnmarshalParams(%q):\n got %+v\nwant %+v", data, fast, slow)
		}
	})
}

// probeNames collects the JSON names of t's fields at every level.
func probeNames(t reflect.Type, into map[string]bool) map[string]bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return into
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		into[name] = true
		probeNames(f.Type, into)
	}
	return into
}

// oracleKeys walks data with encoding/json's tokenizer and returns every member name and every
// name that repeats within its object; ok is false if data is not one JSON value.
func oracleKeys(data []byte) (keys, dups []string, ok bool) {
	if !json.Valid(data) {
		return nil, nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj  bool
		seen map[string]bool
		key  bool // the next token in this object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return keys, dups, len(stack) == 0
		}
		if err != nil {
			return nil, nil, false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.key {
			if k, isKey := tok.(string); isKey {
				keys = append(keys, k)
				if top.seen[k] {
					dups = append(dups, k)
				}
				top.seen[k] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.obj {
			top.key = true // after this value comes a key (or the end)
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, seen: map[string]bool{}, key: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].key = true
			}
		}
	}
}

// FuzzDuplicateKeys: the scanner finds a duplicate key exactly where encoding/json's tokenizer
// sees a name repeat within one object, at any depth.
func FuzzDuplicateKeys(f *testing.F) {
	for _, s := range append(scanCases, `{"a":1,"a":2}`, `{"a":{"b":1,"b":2}}`, `[{"k":1},{"k":2}]`, `{"a":1,"A":2}`,
		`{"a":1,"\u0061":2}`, `{"a":[{"x":1,"y":{"x":2,"x":3}}]}`, `{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"1":0}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) || strings.Contains(string(data), strings.Repeat("[", 250)) || strings.Contains(string(data), strings.Repeat("{", 250)) {
			return
		}
		dup, err := jsonrpc.Duplicate(data)
		_, dups, ok := oracleKeys(data)
		if !ok || !json.Valid(data) {
			return
		}
		if err != nil {
			t.Fatalf("scan(%q) = %v on valid JSON", data, err)
		}
		if (dup != "") != (len(dups) > 0) || dup != "" && !slices.Contains(dups, dup) {
			t.Fatalf("scan(%q) found duplicate %q, encoding/json's tokenizer %q", data, dup, dups)
		}
	})
}

// TestBigStringCheckedAgainAfterAnyChange: a big text found valid is remembered (scan.go), so
// the next layer does not check it again; a text that differs in one byte, even with the same
// length and in the same buffer, must still be checked in full and refused.
func TestBigStringCheckedAgainAfterAnyChange(t *testing.T) {
	text := strings.Repeat(`ab\"c\\\n\u00e9 `, 8<<10) // > 64 KiB, escapes throughout
	msg := []byte(`{"jsonrpc":"2.0","method":"diffAccepted","params":{"contents":"` + text + `"}}`)
	for range 2 { // the second time from the cache
		if _, err := jsonrpc.Decode(msg); err != nil {
			t.Fatalf("valid message refused: %v", err)
		}
	}
	at := len(msg) / 2
	for len(msg) > at && msg[at] != 'a' {
		at++
	}
	for _, bad := range []struct {
		name string
		b    []byte
	}{{"control character", []byte{0x01}}, {"raw newline", []byte{'\n'}}, {"bad escape", []byte(`\x`)}, {"bad unicode escape", []byte(`\u00g9`)}} {
		for _, inPlace := range []bool{false, true} {
			m := msg
			if !inPlace {
				m = bytes.Clone(msg)
			}
			saved := bytes.Clone(m[at : at+len(bad.b)])
			copy(m[at:], bad.b)
			_, err := jsonrpc.Decode(m)
			copy(m[at:], saved)
			var e *jsonrpc.Error
			if !errors.As(err, &e) || e.Code != jsonrpc.CodeParseError {
				t.Errorf("%s (in place %v): Decode = %v, want a parse error", bad.name, inPlace, err)
			}
		}
	}
}

// TestRememberedStringEndsWhereItEnded: a remembered text is recognised by its length and hash
// alone (scan.go, seenAt), so what follows it must still be checked as the rest of the message.
func TestRememberedStringEndsWhereItEnded(t *testing.T) {
	lit := `"` + strings.Repeat(`x\"y\\`, 16<<10) + `"` // > 64 KiB, ends after an escaped backslash
	if _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","method":"m","params":{"a":` + lit + `}}`)); err != nil {
		t.Fatalf("valid message refused: %v", err)
	}
	for _, c := range []struct {
		msg string
		ok  bool
	}{
		{`{"jsonrpc":"2.0","method":"m","params":[` + lit + `,` + lit + `]}`, true},
		{`{"jsonrpc":"2.0","method":"m","params":{"b":` + lit + `x"}}`, false},             // the text runs on
		{`{"jsonrpc":"2.0","method":"m","params":{"b":` + lit + `"}}`, false},              // one quote too many
		{`{"jsonrpc":"2.0","method":"m","params":{"b":` + lit[:len(lit)-1], false},         // cut before its quote
		{`{"jsonrpc":"2.0","method":"m","params":{"b":` + lit, false},                      // cut after it
		{`{"jsonrpc":"2.0","method":"m","params":{"b":` + lit[:len(lit)-2] + `"}}`, false}, // ends on an escaped quote
	} {
		_, err := jsonrpc.Decode([]byte(c.msg))
		if (err == nil) != c.ok {
			t.Errorf("Decode(…%.30q) = %v, want ok %v", c.msg[len(c.msg)-min(len(c.msg), 30):], err, c.ok)
		}
	}
}
