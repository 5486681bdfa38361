package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestEnvelopeRefsBigPieces: a big piece of Pieces (a file's text) is a piece of the message
// itself, not copied; small ones are copied into their neighbours; either way the pieces join
// to the whole message.
func TestEnvelopeRefsBigPieces(t *testing.T) {
	for _, n := range []int{10, refMin - 3, refMin, 1 << 20} {
		text := TextOf(strings.Repeat("a", n-2))
		msg, err := envelope(json.RawMessage("7"), "", "result", Pieces{[]byte(`{"text":`), text.JSON(), []byte("}")})
		if err != nil {
			t.Fatal(err)
		}
		shared := false
		for _, p := range msg {
			shared = shared || len(p) > 0 && &p[0] == &text.JSON()[0]
		}
		if want := n >= refMin; shared != want || (len(msg) > 1) != want {
			t.Errorf("%d-byte text: %d pieces, text referenced %v; want referenced %v", n, len(msg), shared, want)
		}
		joined := bytes.Join(msg, nil)
		if want := `{"jsonrpc":"2.0","id":7,"result":{"text":` + string(text.JSON()) + `}}`; string(joined) != want || !json.Valid(joined) {
			t.Errorf("%d-byte text: message %.60q…", n, joined)
		}
	}
}
