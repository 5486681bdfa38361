package modeltools

import "testing"

// findSymbol takes the first whole-word occurrence, else the first occurrence at all.
func TestFindSymbol(t *testing.T) {
	for _, c := range []struct {
		line, symbol string
		want         int
	}{
		{"c.Close()", "Close", 2},
		{"CloseAll(); Close()", "Close", 12}, // the word, not the prefix of another
		{"CloseAll()", "Close", 0},           // no whole word: the first occurrence
		{"xx_x x", "x", 5},
		{"aaa", "aa", 0},
		{"a", "b", -1},
		{"é Close", "Close", 3},
	} {
		if got := findSymbol(c.line, c.symbol); got != c.want {
			t.Errorf("findSymbol(%q, %q) = %d, want %d", c.line, c.symbol, got, c.want)
		}
	}
}
