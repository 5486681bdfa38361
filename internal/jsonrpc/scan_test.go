package jsonrpc_test

import (
	"encoding/json"
	"reflect"
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
}

// TestScanAgreesWithEncodingJSON: the bridge's scanner accepts exactly what encoding/json
// accepts (RFC 8259), up to the nesting bound.
func TestScanAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range scanCases {
		got := jsonrpc.Valid([]byte(in)) == nil
		if want := json.Valid([]byte(in)); got != want {
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
}

// FuzzUnmarshalParams: the one-pass UnmarshalParams decodes every object exactly as
// encoding/json does, and refuses what it refuses.
func FuzzUnmarshalParams(f *testing.F) {
	for _, s := range []string{
		`{"filePath":"/a/b","lineStart":3,"preview":true,"folders":["x","y"],"arguments":{"k":[1]},"pid":42}`,
		`{"filePath":"\u00e9\n","FILEPATH":"dup","Nested":{"A":1,"b":2},"plain":"p","-":"x","Skipped":"y"}`,
		`{"filePath":3}`, `{"lineStart":"9"}`, `{"preview":"yes"}`, `{"folders":"a"}`, `{"Nested":[]}`,
		`{"arguments":null,"lineStart":null,"filePath":null}`, `{"filePath":"a"`, `{"pid":"7"}`,
		"{\"filePath\":\"\xff\"}", `{"a":1,"a":2}`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || data[0] != '{' || !utf8.Valid(data) {
			return
		}
		var fast, slow paramsProbe
		errFast := jsonrpc.UnmarshalParams(data, &fast)
		errSlow := json.Unmarshal(data, &slow)
		if (errFast == nil) != (errSlow == nil) {
			t.Fatalf("UnmarshalParams(%q) = %v, encoding/json: %v", data, errFast, errSlow)
		}
		if errFast == nil && !reflect.DeepEqual(fast, slow) {
			t.Fatalf("UnmarshalParams(%q):\n got %+v\nwant %+v", data, fast, slow)
		}
	})
}
