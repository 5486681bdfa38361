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
