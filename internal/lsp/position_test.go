package lsp_test

import (
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
)

func TestColumns(t *testing.T) {
	line := "a😀é=1" // a:1 byte/1 unit, 😀:4/2, é:2/1
	for _, c := range []struct{ bytes, units int }{{0, 0}, {1, 1}, {5, 3}, {7, 4}, {8, 5}, {9, 6}} {
		if got := lsp.UTF16Column(line, c.bytes); got != c.units {
			t.Errorf("UTF16Column(%d) = %d, want %d", c.bytes, got, c.units)
		}
		if got := lsp.ByteColumn(line, c.units); got != c.bytes {
			t.Errorf("ByteColumn(%d) = %d, want %d", c.units, got, c.bytes)
		}
	}
	if got := lsp.ByteColumn(line, 2); got != 1 { // inside the surrogate pair: the character's start
		t.Errorf("ByteColumn inside a pair = %d, want 1", got)
	}
	if got := lsp.ByteColumn(line, 99); got != len(line) {
		t.Errorf("ByteColumn past the end = %d", got)
	}
}
