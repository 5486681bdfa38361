package jsonrpc_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

func TestDecode(t *testing.T) {
	deep := func(n int) string {
		return `{"jsonrpc":"2.0","method":"x","params":{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`
	}
	for _, tt := range []struct {
		name, in string
		code     int    // 0: valid
		id       string // the id the error answer names, if any
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, ""},
		{"string id", `{"jsonrpc":"2.0","id":"a-1","method":"ping"}`, 0, ""},
		{"negative id", `{"jsonrpc":"2.0","id":-3,"method":"ping"}`, 0, ""},
		{"notification", `{"jsonrpc":"2.0","method":"selectionChanged","params":{}}`, 0, ""},
		{"response", `{"jsonrpc":"2.0","id":1,"result":{}}`, 0, ""},
		{"error response", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`, 0, ""},
		// JSON-RPC 2.0 §5: "If there was an error in detecting the id in the Request object
		// (e.g. Parse error/Invalid Request), it MUST be Null."
		{"error response with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, 0, ""},
		{"white space around", " \r\n\t{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n", 0, ""},
		{"nesting 200", deep(200), 0, ""},

		// -32700 Parse error: "Invalid JSON was received by the server."
		{"not JSON", `{"jsonrpc":`, jsonrpc.CodeParseError, ""},
		{"empty", ``, jsonrpc.CodeParseError, ""},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}", jsonrpc.CodeParseError, ""},
		{"nesting 10001", deep(10001), jsonrpc.CodeParseError, ""}, // jsontext's bound
		{"trailing garbage", `{"jsonrpc":"2.0","method":"x"} {}`, jsonrpc.CodeParseError, ""},
		// JSON but for its text (issue 35 item 6): answered with the request's id.
		{"lone surrogate in params", `{"jsonrpc":"2.0","id":4,"method":"diffAccepted","params":{"contents":"a\ud800"}}`, jsonrpc.CodeParseError, "4"},
		{"invalid UTF-8 in params", "{\"jsonrpc\":\"2.0\",\"id\":\"k\",\"method\":\"x\",\"params\":[\"\xff\"]}", jsonrpc.CodeParseError, `"k"`},

		// -32600 Invalid Request: "The JSON sent is not a valid Request object."
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, ""},
		{"string", `"ping"`, jsonrpc.CodeInvalidRequest, ""},
		{"number", `42`, jsonrpc.CodeInvalidRequest, ""},
		{"null", `null`, jsonrpc.CodeInvalidRequest, ""},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "7"},
		{"no jsonrpc", `{"id":"q","method":"ping"}`, jsonrpc.CodeInvalidRequest, `"q"`},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":7}`, jsonrpc.CodeInvalidRequest, ""},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, jsonrpc.CodeInvalidRequest, ""},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, jsonrpc.CodeInvalidRequest, ""},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, jsonrpc.CodeInvalidRequest, ""},
		{"null id request", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, jsonrpc.CodeInvalidRequest, ""},
		{"neither method nor id", `{"jsonrpc":"2.0","params":{}}`, jsonrpc.CodeInvalidRequest, ""},
		{"response without result", `{"jsonrpc":"2.0","id":1}`, jsonrpc.CodeInvalidRequest, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := jsonrpc.Decode([]byte(tt.in))
			if tt.code == 0 {
				if err != nil || m == nil {
					t.Fatalf("Decode = %v, %v; want a message", m, err)
				}
				return
			}
			var e *jsonrpc.Error
			if !errors.As(err, &e) || e.Code != tt.code {
				t.Fatalf("Decode error = %v, want code %d", err, tt.code)
			}
			if tt.id != "" && (m == nil || string(m.ID) != tt.id) {
				t.Errorf("the partial message does not carry id %s for the answer: %+v", tt.id, m)
			}
		})
	}
}

func TestUnmarshalParams(t *testing.T) {
	type params struct {
		FilePath  string `json:"filePath"`
		LineStart *int   `json:"lineStart"`
		Preview   bool   `json:"preview"`
		Folders   []string
	}
	for _, tt := range []struct{ in, field string }{
		{`{"filePath":3}`, `"filePath" must be a string`},
		{`{"lineStart":"9"}`, `"lineStart" must be a number`},
		{`{"preview":"yes"}`, `"preview" must be a boolean`},
		{`{"Folders":"a"}`, `"Folders" must be an array`},
		{`[1]`, `params must be an object`},
		{`"x"`, `params must be an object`},
	} {
		var p params
		err := jsonrpc.UnmarshalParams(json.RawMessage(tt.in), &p)
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, tt.field) {
			t.Errorf("UnmarshalParams(%s) = %v, want -32602 with %q", tt.in, err, tt.field)
		}
	}
	for _, in := range []string{``, `null`, `{}`, ` {"filePath":"/a"} `} {
		var p params
		if err := jsonrpc.UnmarshalParams(json.RawMessage(in), &p); err != nil {
			t.Errorf("UnmarshalParams(%q) = %v; missing or null params decode as {}", in, err)
		}
	}
	if err := jsonrpc.Required(false, "tab_name"); err == nil || !strings.Contains(err.Error(), `"tab_name" is required`) {
		t.Errorf("Required = %v", err)
	}
}

func TestEncodeNotification(t *testing.T) {
	b, err := jsonrpc.EncodeNotification("selection_changed", map[string]string{"text": "a\nb"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "\n") {
		t.Errorf("a message with a raw newline breaks line framing: %s", b)
	}
	m, err := jsonrpc.Decode(b)
	if err != nil || m.Method != "selection_changed" || m.ID != nil {
		t.Errorf("Decode(%s) = %+v, %v", b, m, err)
	}
	b, _ = jsonrpc.EncodeNotification("x", nil)
	if string(b) != `{"jsonrpc":"2.0","method":"x","params":{}}` {
		t.Errorf("nil params: %s", b)
	}
}

// TestExactKeys: member names match exactly (issue 16 item 3), as every peer reads them (the CLI
// in Node, Neovim's vim.json, Nova's JS, the MCP go-sdk): a name that matches a field only when
// case is ignored ("METHOD") is an unknown member, ignored at every depth, where encoding/json
// would take it for the field. A key twice is refused naming it: -32600 in the envelope, -32602
// in params (at any depth).
func TestExactKeys(t *testing.T) {
	for _, c := range []struct{ msg, method, id, errMsg string }{
		{`{"jsonrpc":"2.0","id":1,"method":"ping","METHOD":"shutdown"}`, "ping", "1", ""},
		{`{"jsonrpc":"2.0","id":1,"Method":"shutdown","method":"ping"}`, "ping", "1", ""},
		{`{"jsonrpc":"2.0","ID":1,"method":"ping","Params":{"a":1}}`, "ping", "", ""},
		{`{"JSONRPC":"1.0","jsonrpc":"2.0","id":1,"method":"ping"}`, "ping", "1", ""},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x","Code":2,"MESSAGE":"y"}}`, "", "1", "x"},
	} {
		m, err := jsonrpc.Decode([]byte(c.msg))
		if err != nil || m.Method != c.method || string(m.ID) != c.id || m.Params != nil || (m.Error != nil) != (c.errMsg != "") {
			t.Errorf("Decode(%s) = %+v, %v; want method %q, id %s, the wrong-case members ignored", c.msg, m, err, c.method, c.id)
			continue
		}
		if m.Error != nil && (m.Error.Code != 1 || m.Error.Message != c.errMsg) {
			t.Errorf("Decode(%s): error %+v, want code 1 %q", c.msg, m.Error, c.errMsg)
		}
	}
	// A lone "METHOD" is no method: the same error as without it.
	for _, c := range [][2]string{
		{`{"jsonrpc":"2.0","id":1,"METHOD":"ping"}`, `{"jsonrpc":"2.0","id":1}`},
		{`{"jsonrpc":"2.0","Method":"ping"}`, `{"jsonrpc":"2.0"}`},
		{`{"JSONRPC":"2.0","id":1,"method":"ping"}`, `{"id":1,"method":"ping"}`},
	} {
		_, err := jsonrpc.Decode([]byte(c[0]))
		_, want := jsonrpc.Decode([]byte(c[1]))
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("Decode(%s) = %v, want %v as for %s", c[0], err, want, c[1])
		}
	}
	for _, c := range []struct{ msg, names string }{
		{`{"jsonrpc":"2.0","id":1,"method":"ping","method":"shutdown"}`, `duplicate key "method"`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","me\u0074hod":"shutdown"}`, `duplicate key "method"`},
		{`{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}`, `duplicate key "jsonrpc"`},
		// Members kept raw (id, params, result) are not decoded by encoding/json/v2: found apart.
		{`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, `duplicate key "id"`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{},"params":{"a":1}}`, `duplicate key "params"`},
		{`{"jsonrpc":"2.0","id":1,"result":{},"result":{"a":{"b":1,"b":2}}}`, `duplicate key "result"`},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x","code":2}}`, `duplicate key "code"`},
	} {
		_, err := jsonrpc.Decode([]byte(c.msg))
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(e.Message, c.names) {
			t.Errorf("Decode(%s) = %v, want -32600 naming %s", c.msg, err, c.names)
		}
	}

	type pos struct {
		Line int `json:"line"`
	}
	type params struct {
		Path  string          `json:"filePath"`
		Start *pos            `json:"start"`
		List  []pos           `json:"list"`
		Raw   json.RawMessage `json:"arguments"`
		Text  jsonrpc.Text    `json:"contents"`
	}
	for _, c := range []struct {
		params string
		want   params
	}{
		{`{"filePath":"/a","FilePath":"/b"}`, params{Path: "/a"}},
		{`{"FilePath":"/b","filePath":"/a"}`, params{Path: "/a"}},
		{`{"FILEPATH":"/b"}`, params{}},
		{`{"start":{"LINE":1}}`, params{Start: &pos{}}},
		{`{"start":{"Line":2,"line":1}}`, params{Start: &pos{1}}},
		{`{"list":[{"line":1},{"Line":2}]}`, params{List: []pos{{1}, {0}}}},
		{`{"Arguments":{"a":1},"CONTENTS":"x"}`, params{}},
		{`{"arguments":{"A":1,"a":2},"Contents":"y","contents":"x","x":{"FILEPATH":1}}`, params{Raw: json.RawMessage(`{"A":1,"a":2}`), Text: jsonrpc.TextOf("x")}},
	} {
		var p params
		if err := jsonrpc.UnmarshalParams(json.RawMessage(c.params), &p); err != nil || !reflect.DeepEqual(p, c.want) {
			t.Errorf("UnmarshalParams(%s) = %+v, %v; want %+v (wrong-case names ignored)", c.params, p, err, c.want)
		}
	}
	for _, c := range []struct{ params, names string }{
		{`{"filePath":"/a","filePath":"/b"}`, `duplicate key "filePath"`},
		{`{"start":{"line":1,"line":2}}`, `duplicate key "line"`},
		{`{"arguments":{"x":{"y":1,"y":2}}}`, `duplicate key "y"`},
		{`{"other":[{"k":1,"k":2}]}`, `duplicate key "k"`},
		{`{"contents":"x","contents":"y"}`, `duplicate key "contents"`},
	} {
		var p params
		err := jsonrpc.UnmarshalParams(json.RawMessage(c.params), &p)
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, c.names) {
			t.Errorf("UnmarshalParams(%s) = %v, want -32602 naming %s", c.params, err, c.names)
		}
	}
}

// TestDuplicateKeysAtTwoDepths: jsontext stops at the first duplicate, so one deeper down (left
// to UnmarshalParams) must not hide a later one in the envelope.
func TestDuplicateKeysAtTwoDepths(t *testing.T) {
	_, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"params":{"a":1,"a":2},"method":"ping","method":"shutdown"}`))
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(e.Message, `duplicate key "method"`) {
		t.Errorf("Decode = %v, want -32600 naming method", err)
	}
	m, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"params":{"a":1,"a":2},"method":"ping"}`))
	if err != nil || m.Method != "ping" {
		t.Fatalf("a duplicate in params is for UnmarshalParams to refuse (-32602 with the id): %v", err)
	}
	var p struct{ A int }
	if err := jsonrpc.UnmarshalParams(m.Params, &p); !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, `duplicate key "a"`) {
		t.Errorf("UnmarshalParams = %v, want -32602 naming a", err)
	}
}

// A member of the envelope of the wrong type is named as a member of params is (one refusal for
// both): which member, what it must be, what it was.
func TestDecodeNamesWrongType(t *testing.T) {
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"method":7}`:                                   `invalid request: "method" must be a string, not number`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`:           `invalid request: "error.code" must be a number, not string`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","jsonrpc2":1,"jsonrpc":"2.0"}`: `invalid request: duplicate key "jsonrpc"`,
	} {
		_, err := jsonrpc.Decode([]byte(in))
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidRequest || e.Message != want {
			t.Errorf("Decode(%s) = %v, want -32600 %q", in, err, want)
		}
	}
}
