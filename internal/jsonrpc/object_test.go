package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// paramsProbe has a field of every kind the bridge's params use.
type paramsProbe struct {
	Path    string          `json:"filePath"`
	Line    *int            `json:"lineStart"`
	Flag    bool            `json:"preview"`
	List    []string        `json:"folders"`
	Raw     json.RawMessage `json:"arguments"`
	Num     float64         `json:"pid"`
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
	When *float64          `json:"when"`
}

type named string

// FuzzUnmarshalParams: UnmarshalParams decodes as encoding/json does (the oracle), except that
// it refuses a duplicate key at any level (found by encoding/json's own tokenizer) and (jsontext,
// RFC 7493) a \u escape of half a surrogate pair, which encoding/json turns into U+FFFD, and that
// it matches names exactly: where a name matches a field only when case is ignored, which
// encoding/json would take for the field, the oracle is encoding/json/v2, which matches exactly
// (TestExactKeys), decoding all of params at once rather than by members.
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
		`{"FILEPATH":"x","filePath":"y","arguments":null,"Arguments":[1]}`, `{"range":{"start":{"LINE":"x","line":2}}}`,
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
		if check(data) != nil {
			if errFast == nil {
				t.Fatalf("UnmarshalParams(%q) accepted what jsontext refuses", data)
			}
			return
		}
		if len(dups) > 0 {
			if errFast == nil || !strings.Contains(errFast.Error(), "duplicate key") {
				t.Fatalf("UnmarshalParams(%q) = %v, want a duplicate key refused (%q)", data, errFast, dups)
			}
			return
		}
	keys:
		for _, k := range keys {
			for n := range names {
				if k != n && strings.EqualFold(k, n) {
					slow = paramsProbe{}
					errSlow = jsonv2.Unmarshal(data, &slow)
					break keys
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

// check is jsontext's verdict on data, names allowed twice (the oracle finds those).
func check(data []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true))
	if err := dec.SkipValue(); err != nil {
		return err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return fmt.Errorf("trailing data: %v", err)
	}
	return nil
}

// TestBigStringReadAgainAfterAnyChange: a string of 64 KiB or more read without fault is
// remembered (object.go), so the next layer only hashes it; bytes that differ in any way, even
// with the same length and in the same buffer, must be read in full and refused.
func TestBigStringReadAgainAfterAnyChange(t *testing.T) {
	text := strings.Repeat(`ab\"c\\\n\u00e9 `, 8<<10) // > 64 KiB, escapes throughout
	msg := []byte(`{"jsonrpc":"2.0","method":"diffAccepted","params":{"tabName":"t","contents":"` + text + `"}}`)
	m, err := jsonrpc.Decode(msg)
	if err != nil {
		t.Fatalf("valid message refused: %v", err)
	}
	if !jsonrpc.Substituted(m.Params) {
		t.Fatal("the text of a big message was not remembered")
	}
	var p struct {
		TabName  string       `json:"tabName"`
		Contents jsonrpc.Text `json:"contents"`
	}
	if err := jsonrpc.UnmarshalParams(m.Params, &p); err != nil || p.TabName != "t" || string(p.Contents.JSON()) != `"`+text+`"` {
		t.Fatalf("remembered text misread: %q, %v", p.TabName, err)
	}
	at := bytes.Index(m.Params, []byte("ab"))
	for _, bad := range []struct{ name, b string }{
		{"control character", "\x01"}, {"raw newline", "\n"}, {"bad escape", `\x`}, {"bad unicode escape", `\u00g9`},
		{"a name twice", `","tabName":"`}, {"a name twice, escaped", `","tab\u004eame":"`},
	} {
		for _, inPlace := range []bool{false, true} {
			params := m.Params
			if !inPlace {
				params = bytes.Clone(params)
			}
			saved := bytes.Clone(params[at : at+len(bad.b)])
			copy(params[at:], bad.b)
			err := jsonrpc.UnmarshalParams(params, &p)
			copy(params[at:], saved)
			var e *jsonrpc.Error
			if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("%s (in place %v): UnmarshalParams = %v, want -32602", bad.name, inPlace, err)
			}
		}
	}
}

// TestRememberedStringOnlyAsAValue: a remembered text is read as `""` only where that reads the
// same (object.go, substitute); elsewhere the message must be read as it is: as a name (which
// may repeat), after an escaped quote, and where it is no string at all.
func TestRememberedStringOnlyAsAValue(t *testing.T) {
	body := strings.Repeat("x:1", 32<<10) // > 64 KiB, no quotes or escapes
	list := strings.Repeat(",1", 32<<10) + ","
	lit, listLit := `"`+body+`"`, `"`+list+`"`
	for _, l := range []string{lit, listLit} {
		if _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","method":"m","params":{"a":` + l + `}}`)); err != nil {
			t.Fatalf("valid message refused: %v", err)
		}
	}
	for _, c := range []struct {
		name, params string
		ok           bool
	}{
		{"a value again", `{"b":` + lit + `}`, true},
		{"a name twice", `{` + lit + `:1,` + lit + `:2}`, false},
		{"a name, then the same name escaped", `{` + lit + `:1,"\u0078` + body[1:] + `":2}`, false},
		{"after an escaped quote", `{"b":"q\` + lit + `}`, true},
		{"runs on after it", `{"b":` + lit + `x"}`, false},
		// `""` there is not valid JSON, the message is: ["q",1,1,…,1,"y"].
		{"no string: its quotes close and open others", `{"b":["q` + listLit + `y"]}`, true},
	} {
		var p struct { // a raw member: the params are read by members, as Decode reads
			Raw json.RawMessage `json:"raw"`
		}
		err := jsonrpc.UnmarshalParams([]byte(c.params), &p)
		if (err == nil) != c.ok {
			t.Errorf("%s: UnmarshalParams = %.200v, want ok %v", c.name, err, c.ok)
		}
	}
}

// FuzzRememberedString: with a big text remembered, params holding it in whatever context the
// fuzzer makes around it are judged as encoding/json's tokenizer judges them (valid JSON, no
// duplicate key; jsontext's verdict on surrogates): reading the text as `""` (object.go,
// substitute) never changes a verdict, nor what a raw member holds.
func FuzzRememberedString(f *testing.F) {
	lit := `"` + strings.Repeat(`x:1,`, 16<<10) + `"` // 64 KiB and more
	for _, s := range [][2]string{
		{`{"raw":`, `}`}, {`{`, `:1}`}, {`{"a":["q`, `y"]}`}, {`{"a":"\`, `}`}, {`{"raw":[`, `,` + lit + `]}`},
		{`{"a":1,"raw":`, `,"a":2}`}, {`{"b":{"c":`, `},"raw":7}`}, {`{"raw":"`, `"}`}, {`{`, `:1,` + lit + `:2}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if len(a) == 0 || a[0] != '{' || len(a) > 4096 || !utf8.Valid(a) || !utf8.Valid(b) {
			return
		}
		if _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","method":"m","params":{"a":` + lit + `}}`)); err != nil {
			t.Fatal(err) // remembers lit (again: other tests remember texts too)
		}
		params := []byte(string(a) + lit + string(b))
		var p struct {
			Raw json.RawMessage `json:"raw"`
		}
		err := jsonrpc.UnmarshalParams(params, &p)
		_, dups, ok := oracleKeys(params)
		if want := ok && len(dups) == 0 && check(params) == nil; (err == nil) != want {
			t.Fatalf("UnmarshalParams(%.100q…%.100q) = %.200v, want ok %v", a, b, err, want)
		}
		var q map[string]json.RawMessage // matches names exactly, as UnmarshalParams does
		if err == nil && (json.Unmarshal(params, &q) != nil || !bytes.Equal(p.Raw, q["raw"])) {
			t.Fatalf("UnmarshalParams(%.100q…%.100q): raw %.100q, encoding/json %.100q", a, b, p.Raw, q["raw"])
		}
	})
}

// TestBigTextMemberKeptRaw: a struct that declares a big member it does not use as a Text
// (review's observer reads openDiff's path from arguments holding the proposal) keeps it as the
// slice of params it came in, unread by the v2 decoder (issue 27: skipping it read it in full,
// ~20 ms per 10 MiB openDiff); the other members decode as v2 decodes them.
func TestBigTextMemberKeptRaw(t *testing.T) {
	text := strings.Repeat(`ab\"c\\\n\u00e9 `, 8<<10) // > 64 KiB
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openDiff","arguments":` +
		`{"old_file_path":"/w/a.go","new_file_contents":"` + text + `","tab_name":"t","uri":7}}}`)
	m, err := jsonrpc.Decode(msg)
	if err != nil {
		t.Fatal(err)
	}
	var call struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := jsonrpc.UnmarshalParams(m.Params, &call); err != nil {
		t.Fatal(err)
	}
	type pathOnly struct {
		Path     string       `json:"old_file_path"`
		Tab      string       `json:"tab_name"`
		Proposal jsonrpc.Text `json:"new_file_contents"`
	}
	var got, want pathOnly
	if err := jsonrpc.UnmarshalParams(call.Arguments, &got); err != nil {
		t.Fatal(err)
	}
	if err := jsonv2.Unmarshal(call.Arguments, &want); err != nil || got.Path != want.Path || got.Tab != want.Tab || got.Path != "/w/a.go" {
		t.Fatalf("UnmarshalParams = %+v, v2 = %+v (%v)", got, want, err)
	}
	at := bytes.Index(msg, []byte(`"`+text[:16]))
	if lit := got.Proposal.JSON(); len(lit) != len(text)+2 || &lit[0] != &msg[at] {
		t.Fatalf("the proposal was not kept where it came (%d bytes)", len(lit))
	}
	// A wrong type in a member the struct does have is still the v2 decoder's error.
	var typed struct {
		URI string `json:"uri"`
	}
	if err := jsonrpc.UnmarshalParams(call.Arguments, &typed); err == nil || !strings.Contains(err.Error(), `"uri" must be a string`) {
		t.Fatalf("uri 7 into a string: %v", err)
	}
}
