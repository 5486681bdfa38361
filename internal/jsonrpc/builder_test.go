package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// refText is an Appender holding one big JSON string.
type refText []byte

func (t refText) AppendJSON(b *Builder) error {
	b.AppendString(`{"text":`)
	b.Ref(t)
	b.AppendByte('}')
	return nil
}

// TestEnvelopeRefsBigTexts: an Appender's big text is a piece of the message itself (no copy);
// a small one is copied into its neighbours; either way the pieces join to the same valid JSON.
func TestEnvelopeRefsBigTexts(t *testing.T) {
	for _, n := range []int{10, refMin - 3, refMin, 1 << 20} {
		text := refText(`"` + strings.Repeat("a", n-2) + `"`)
		msg, err := envelope(json.RawMessage("7"), "", "result", text)
		if err != nil {
			t.Fatal(err)
		}
		shared := false
		for _, p := range msg {
			shared = shared || len(p) > 0 && &p[0] == &text[0]
		}
		if want := n >= refMin; shared != want || (len(msg) > 1) != want {
			t.Errorf("%d-byte text: %d pieces, text referenced %v; want referenced %v", n, len(msg), shared, want)
		}
		joined := bytes.Join(msg, nil)
		if want := `{"jsonrpc":"2.0","id":7,"result":{"text":` + string(text) + `}}`; string(joined) != want {
			t.Errorf("%d-byte text: message %.60q…", n, joined)
		}
	}
}

// ExampleBuilder: the message of a big text in three pieces, the text itself in the middle.
func ExampleBuilder() {
	text := []byte(`"` + strings.Repeat("x", 100<<10) + `"`)
	var b Builder
	b.AppendString(`{"jsonrpc":"2.0","method":"showDiff","params":{"newContents":`)
	b.Ref(text)
	b.AppendString(`}}`)
	for _, p := range b.Pieces() {
		fmt.Println(len(p), &p[0] == &text[0])
	}
	// Output:
	// 61 false
	// 102402 true
	// 2 false
}
