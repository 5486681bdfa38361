package main

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// rawField must return exactly the JSON token encoding/json would read for the key, for any
// escaping in the text: the driver forwards that token as the accepted text unchanged.
func TestRawFieldMatchesDecoding(t *testing.T) {
	for _, text := range []string{
		"", `"`, `\`, `\\`, `\"`, "a\"b\\\"c\\\\", `"newContents":"x"`, "ends with backslash \\",
		sourceText(4096), "日本語 → ✓ <&>",
	} {
		msg, _ := json.Marshal(map[string]any{"tabName": "t", "newContents": text, "fileExists": true})
		raw, ok := rawField(msg, "newContents")
		if !ok {
			t.Fatalf("no newContents in %s", msg)
		}
		var got string
		if err := json.Unmarshal(raw, &got); err != nil || got != text {
			t.Errorf("rawField(%s) = %s, decodes to %q (%v), want %q", msg, raw, got, err, text)
		}
		if n, ok := rawField(msg, "fileExists"); !ok || string(n) != "true" {
			t.Errorf("fileExists = %q", n)
		}
	}
}

func TestSourceTextIsValidUTF8OfTheAskedSize(t *testing.T) {
	for _, n := range []int{1, 100, 64 << 10, 1<<20 + 7} {
		s := sourceText(n)
		if !utf8.ValidString(s) || len(s) > n || len(s) < n-4 {
			t.Errorf("sourceText(%d): %d bytes, valid UTF-8 %v", n, len(s), utf8.ValidString(s))
		}
	}
}

func TestSelectionSeq(t *testing.T) {
	line := selectionLine(123456, "/w/a.go")
	var m struct {
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	if seq, ok := selectionSeq(m.Params); !ok || seq != 123456 {
		t.Errorf("selectionSeq = %d, %v", seq, ok)
	}
}
