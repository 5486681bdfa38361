package main

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

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
