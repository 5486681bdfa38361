package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// sealedMessage is a tools/call whose arguments hold one big text, sealed as the readers seal.
func sealedMessage(t *testing.T) (msg []byte, at int) {
	t.Helper()
	text := `"` + strings.Repeat(`x\"y\\é `, 16<<10) + `"`
	msg = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openDiff","arguments":{"new_file_contents":` + text + `}}}`)
	Seal(msg)
	return msg, bytes.Index(msg, []byte(text))
}

// TestSealedStringKnownByPlace: once a big string in a sealed message was found valid, the next
// layer's scan of the same bytes knows it by its place (seal.go); the same bytes in a buffer
// that is not sealed are not known so (they are hashed, or checked).
func TestSealedStringKnownByPlace(t *testing.T) {
	msg, at := sealedMessage(t)
	if _, ok := placedAt(msg, at); ok {
		t.Fatal("known by place before any scan found it valid")
	}
	m, err := Decode(msg)
	if err != nil {
		t.Fatal(err)
	}
	end, ok := placedAt(msg, at)
	if !ok || msg[end-1] != '"' || end != bytes.Index(msg, []byte(`}}}`)) {
		t.Fatalf("after Decode: placedAt = %d, %v", end, ok)
	}
	var p struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := UnmarshalParams(m.Params, &p); err != nil || len(p.Arguments) == 0 {
		t.Fatalf("params: %v", err)
	}
	if _, ok := placedAt(bytes.Clone(msg), at); ok {
		t.Error("an unsealed copy is known by place")
	}
	if _, ok := placedAt(msg[:end-1], at); ok {
		t.Error("known by place in a slice that cuts it")
	}
}

// TestSealedStringCutOrFollowedWrong: what surrounds a string known by place is still checked.
func TestSealedStringCutOrFollowedWrong(t *testing.T) {
	msg, at := sealedMessage(t)
	if _, err := Decode(msg); err != nil {
		t.Fatal(err)
	}
	end, _ := placedAt(msg, at)
	for _, d := range [][]byte{msg[:end], msg[:end-1], msg[:at+10]} {
		if err := valid(d[bytes.Index(d, []byte(`{"new_file`)):], nil); err == nil {
			t.Errorf("%d bytes cut from the message accepted", len(msg)-len(d))
		}
	}
}
