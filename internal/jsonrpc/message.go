// Package jsonrpc is a small JSON-RPC 2.0 peer for both of the bridge's channels: MCP over
// WebSocket (Claude side) and the editor protocol over stdio (editor side).
//
// Not the go-sdk's jsonrpc: both channels are symmetric peers that need custom notifications
// (ide_connected, selection_changed, at_mentioned), exact error codes, and handler panics turned
// into error answers; the SDK has no public API for the first and does not recover panics. JSON
// is read with jsontext and encoding/json/v2 (github.com/go-json-experiment/json), strict by default.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Standard and bridge error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeServerError is the generic application error (the spec's -32000 for a refused openDiff).
	CodeServerError = -32000
	// CodeUnknownDiff answers an editor decision about a diff the bridge does not hold.
	CodeUnknownDiff = -32001
	// CodeNotInitialized answers requests before (or a second) initialize.
	CodeNotInitialized = -32002
)

// Error is a JSON-RPC error object. It implements error.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// Errorf returns an *Error with the given code.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Message is one JSON-RPC 2.0 message: a request (ID and Method), a notification (Method, no
// ID) or a response (ID and Result or Error).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// IsResponse reports whether m answers an earlier call.
func (m *Message) IsResponse() bool { return m.Method == "" && m.ID != nil }

// Request is an incoming call or notification as handed to a Handler.
type Request struct {
	Method string
	Params json.RawMessage
	// ID is nil for a notification.
	ID json.RawMessage
}

// IsCall reports whether the peer waits for an answer.
func (r *Request) IsCall() bool { return r.ID != nil }

// Decode parses one message. Its errors are *Error with CodeParseError (not JSON, invalid UTF-8)
// or CodeInvalidRequest (a batch, not an object, wrong "jsonrpc", bad id, a key twice); the
// partly decoded message is returned with them where it carries an id, so the answer can name
// it. Names are matched exactly: "METHOD" is an unknown member, ignored, not "method".
//
// The message's ID, Params and Result alias data: the caller must not change data afterwards.
func Decode(data []byte) (*Message, error) {
	data = trimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		if err := check(data, jsontext.AllowDuplicateNames(true)); err != nil {
			return nil, Errorf(CodeParseError, "parse error: %v", err)
		}
		if data[0] == '[' {
			return nil, Errorf(CodeInvalidRequest, "invalid request: batch arrays are not supported")
		}
		return nil, Errorf(CodeInvalidRequest, "invalid request: message must be a JSON object")
	}
	// Names may repeat below the envelope: a duplicate in params is refused where it is read
	// (UnmarshalParams, -32602 answered with the request's id), one in a result by Conn.Call.
	// The whole message is read first, so text that is not JSON is a parse error even where a
	// duplicate comes first.
	var m Message
	if err := unmarshalStrict(data, &m, true); err != nil {
		if e := refusal(err, CodeInvalidRequest, "invalid request"); e != nil {
			return nil, e
		}
		return envelopeOf(data), Errorf(CodeParseError, "parse error: %v", err)
	}
	// JSON-RPC 2.0 §5: an error answer to a request whose id could not be read has id null.
	nullErr := string(m.ID) == "null" && m.Method == "" && m.Error != nil
	if m.ID != nil && !validID(m.ID) && !nullErr {
		return &Message{}, &Error{Code: CodeInvalidRequest, Message: "invalid request: id must be a string or number", Data: string(m.ID)}
	}
	if m.JSONRPC != "2.0" {
		return &m, Errorf(CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	if m.Method == "" && m.ID == nil {
		return &m, Errorf(CodeInvalidRequest, "invalid request: neither method nor id")
	}
	if m.Method == "" && m.Result == nil && m.Error == nil {
		return &m, Errorf(CodeInvalidRequest, "invalid request: response without result or error")
	}
	return &m, nil
}

// envelopeOf is the id and method of an object that is JSON but for its text: a lone surrogate
// escape ("\ud800") or bytes that are not UTF-8 somewhere in it. Its parse error is then
// answered with its id, so the peer is not left waiting for an answer it can match (issue 35
// item 6); nil when the envelope cannot be read.
func envelopeOf(data []byte) *Message {
	var env struct {
		ID     jsontext.Value `json:"id"`
		Method string         `json:"method"`
	}
	if jsonv2.Unmarshal(data, &env, jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)) != nil ||
		!validID(json.RawMessage(env.ID)) || env.Method == "" {
		return nil
	}
	return &Message{ID: json.RawMessage(bytes.Clone(env.ID)), Method: env.Method}
}

// validID reports whether id is a string or a number (not null, an object, an array, a bool).
func validID(id json.RawMessage) bool {
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || '0' <= id[0] && id[0] <= '9')
}

// envelope writes {"jsonrpc":"2.0",["id":id,]["method":method,]key:v} by hand, v encoded in
// place: json.Marshal of a RawMessage field would scan and copy it again, which for a 10 MiB
// file costs more than encoding it. Pieces stay pieces (big ones apart). A nil v is sent as {}.
func envelope(id json.RawMessage, method, key string, v any) (net.Buffers, error) {
	body, ok := v.(Pieces)
	if !ok {
		raw, isRaw := v.(json.RawMessage)
		if !isRaw && v != nil {
			var err error
			if raw, err = json.Marshal(v); err != nil {
				return nil, err
			}
		}
		if len(raw) == 0 {
			raw = json.RawMessage("{}")
		}
		body = Pieces{raw}
	}
	head := append(make([]byte, 0, 256), `{"jsonrpc":"2.0"`...)
	if id != nil {
		head = append(append(head, `,"id":`...), id...)
	}
	if method != "" {
		head, _ = jsontext.AppendQuote(append(head, `,"method":`...), method)
	}
	msg := net.Buffers{append(head, `,"`+key+`":`...)} // its last buffer is always our own
	for _, b := range append(body, []byte("}")) {
		if len(b) < refMin {
			msg[len(msg)-1] = append(msg[len(msg)-1], b...)
		} else {
			msg = append(msg, b, nil)
		}
	}
	return msg, nil
}

// EncodeNotification returns the bytes of a notification; used where one message is sent to
// many peers, so it is encoded once.
func EncodeNotification(method string, params any) ([]byte, error) {
	msg, err := envelope(nil, method, "params", params)
	if err != nil {
		return nil, err
	}
	return bytes.Join(msg, nil), nil
}
