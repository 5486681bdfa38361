package jsonrpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// FuzzDecode: whatever arrives on either channel, Decode must not panic, and every refusal must
// be a *jsonrpc.Error with a code the peer can act on (JSON-RPC 2.0: -32700 for text that is not
// JSON, -32600 for JSON that is not a valid request).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openDiff","arguments":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`"just a string"`, `42`, `null`, `{`, ``, "\xff\xfe", `{"jsonrpc":"1.0","id":1,"method":"x"}`,
		`{"jsonrpc":"2.0","id":{},"method":"x"}`, `{"jsonrpc":"2.0","id":1,"method":7}`,
		`{"jsonrpc":"2.0","id":1}`, `{"a":"\"{[{[{["}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","METHOD":"x"}`, `{"jsonrpc":"2.0","id":1,"method":"ping","method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1,"a":2}}`, `{"jsonrpc":"2.0","id":1,"Id":2,"method":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := jsonrpc.Decode(data)
		if err != nil {
			var e *jsonrpc.Error
			if !errors.As(err, &e) {
				t.Fatalf("Decode(%q) error %T %v is not a *jsonrpc.Error", data, err, err)
			}
			if e.Code != jsonrpc.CodeParseError && e.Code != jsonrpc.CodeInvalidRequest {
				t.Fatalf("Decode(%q) error code %d, want -32700 or -32600", data, e.Code)
			}
			// -32700 exactly for what is not JSON (encoding/json decides; deep nesting and
			// invalid UTF-8 are refused by design).
			if utf8.Valid(data) && !strings.Contains(e.Message, "nesting") && (e.Code == jsonrpc.CodeParseError) == json.Valid(data) {
				t.Fatalf("Decode(%q) = %v, but encoding/json valid = %v", data, e, json.Valid(data))
			}
			return
		}
		if m == nil {
			t.Fatalf("Decode(%q): nil message and nil error", data)
		}
		if !json.Valid(data) {
			t.Fatalf("Decode(%q) accepted what encoding/json calls invalid", data)
		}
		if m.JSONRPC != "2.0" {
			t.Fatalf("Decode(%q) accepted jsonrpc %q", data, m.JSONRPC)
		}
		if m.Method == "" && m.ID == nil {
			t.Fatalf("Decode(%q) accepted a message with neither method nor id", data)
		}
		// Oracle for exact keys: encoding/json into a map matches names exactly, so a name in
		// the wrong case ("METHOD") is a member of its own there, as it is unknown to Decode.
		var env map[string]json.RawMessage
		if err := json.Unmarshal(data, &env); err != nil {
			t.Fatalf("Decode(%q) accepted what encoding/json cannot read as an object: %v", data, err)
		}
		if _, dups, _ := oracleKeys(data); len(dups) > 0 && topLevelDup(data) {
			t.Fatalf("Decode(%q) accepted a duplicate envelope key", data)
		}
		var method string
		_ = json.Unmarshal(env["method"], &method)
		if m.Method != method || !bytes.Equal(m.Params, env["params"]) || !bytes.Equal(m.ID, env["id"]) {
			t.Fatalf("Decode(%q) = method %q params %s id %s; encoding/json's map: %q %s %s", data, m.Method, m.Params, m.ID, method, env["params"], env["id"])
		}
	})
}

// topLevelDup reports whether a name repeats among the members of the object data.
func topLevelDup(data []byte) bool {
	var members map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	members = map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		k, _ := tok.(string)
		if _, seen := members[k]; seen {
			return true
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return false
		}
		members[k] = v
	}
	return false
}

// FuzzStdioFraming: the editor channel reads whatever bytes the editor writes. The detecting
// stream must never panic, every Read must consume input (so a finite input always ends), and no
// returned frame may exceed MaxFrame.
func FuzzStdioFraming(f *testing.F) {
	for _, s := range []string{
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n",
		"Content-Length: 2\r\n\r\n{}Content-Length: 2\r\n\r\n{}",
		"\n\n  {}\n{}",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 99\r\n\r\n{}",
		"content-length: 2\r\nContent-Type: x\r\n\r\n[]",
		"C\r\n\r\n",
		"x{}",
		"",
		"[1,2]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := jsonrpc.NewDetectStream(bytes.NewReader(data), nopWriteCloser{})
		// Each successful Read consumes at least one byte, so len(data)+1 reads must end it.
		for i := 0; i <= len(data)+1; i++ {
			frame, err := s.Read(context.Background())
			if err != nil {
				if errors.Is(err, jsonrpc.ErrFrameTooLarge) {
					continue
				}
				return
			}
			if len(frame) > jsonrpc.MaxFrame {
				t.Fatalf("frame of %d bytes over MaxFrame", len(frame))
			}
		}
		t.Fatalf("stream over %d bytes did not end after %d reads", len(data), len(data)+2)
	})
}

type nopWriteCloser struct{}

func (nopWriteCloser) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriteCloser) Close() error                { return nil }

var _ io.WriteCloser = nopWriteCloser{}
