package lsp

import (
	"strings"
	"unicode/utf8"
)

// Position encodings.
const (
	UTF8  = "utf-8"
	UTF16 = "utf-16"
)

// UTF16Column converts a byte offset in line to UTF-16 code units, the protocol's default
// position unit. Offsets past the end count to the end; an offset inside a character counts
// that character.
func UTF16Column(line string, byteCol int) int {
	n := 0
	for i, r := range line {
		if i >= byteCol {
			break
		}
		n += utf16Len(r)
	}
	return n
}

// ByteColumn converts UTF-16 code units in line to a byte offset (the inverse of
// UTF16Column). Units past the end give the line's length; a unit inside a surrogate pair gives
// the character's start.
func ByteColumn(line string, utf16Col int) int {
	n := 0
	for i, r := range line {
		if n >= utf16Col {
			return i
		}
		n += utf16Len(r)
		if n > utf16Col {
			return i
		}
	}
	return len(line)
}

func utf16Len(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}

// splitLines splits text at \n, \r\n and \r, the protocol's line ends, without them.
func splitLines(text string) []string {
	var lines []string
	for {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			return append(lines, text)
		}
		lines = append(lines, text[:i])
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		text = text[i+1:]
	}
}

func lineAt(lines []string, i int) string {
	if i < 0 || i >= len(lines) {
		return ""
	}
	return lines[i]
}
