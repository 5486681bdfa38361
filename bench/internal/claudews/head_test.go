package claudews

import (
	"encoding/json"
	"strings"
	"testing"
)

// rawField must return exactly the JSON token encoding/json would read for the key, for any
// escaping in the text: the driver forwards that token as the accepted text unchanged.
func TestRawFieldMatchesDecoding(t *testing.T) {
	for _, text := range []string{
		"", `"`, `\`, `\\`, `\"`, "a\"b\\\"c\\\\", `"newContents":"x"`, "ends with backslash \\",
		strings.Repeat("\tx := \"q\" // →\n", 300), "日本語 → ✓ <&>",
	} {
		msg, _ := json.Marshal(map[string]any{"tabName": "t", "newContents": text, "fileExists": true})
		raw, ok := RawField(msg, "newContents")
		if !ok {
			t.Fatalf("no newContents in %s", msg)
		}
		var got string
		if err := json.Unmarshal(raw, &got); err != nil || got != text {
			t.Errorf("RawField(%s) = %s, decodes to %q (%v), want %q", msg, raw, got, err, text)
		}
		if n, ok := RawField(msg, "fileExists"); !ok || string(n) != "true" {
			t.Errorf("fileExists = %q", n)
		}
	}
}

// A big answer whose "id" comes after its result (claudecode.nvim's key order) is still matched
// to its call: the bench hung on the peer's openDiff answers without this.
func TestParseHeadIDAfterABigResult(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	for _, msg := range []string{
		`{"result":{"content":[{"type":"text","text":"FILE_SAVED"},{"type":"text","text":"` + big + `"}]},"jsonrpc":"2.0","id":7}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + big + `"}]}}`,
	} {
		if h := ParseHead([]byte(msg)); string(h.ID) != "7" || h.Method != "" {
			t.Errorf("ParseHead(%.60s...) = id %q method %q, want id 7", msg, h.ID, h.Method)
		}
	}
	if h := ParseHead([]byte(`{"params":{"text":"` + big + `"},"method":"selection_changed","jsonrpc":"2.0"}`)); h.Method != "selection_changed" || h.ID != nil {
		t.Errorf("notification with method last: %+v", h)
	}
}
