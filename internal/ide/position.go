package ide

import (
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// FindRange finds startText in content (and endText from there) and returns the range between
// them in enc, or nil when startText does not occur. With toEOL the end moves to the end of its
// line. This is the openFile selection rule, resolved once here so editors only select a range.
func FindRange(content, startText, endText string, toEOL bool, enc Encoding) *Range {
	i := strings.Index(content, startText)
	if i < 0 {
		return nil
	}
	end := i + len(startText)
	if endText != "" {
		if j := strings.Index(content[i:], endText); j >= 0 {
			end = i + j + len(endText)
		}
	}
	if toEOL {
		if k := strings.IndexByte(content[end:], '\n'); k >= 0 {
			end += k
		} else {
			end = len(content)
		}
		end -= trailingCR(content[:end])
	}
	return &Range{Start: PositionAt(content, i, enc), End: PositionAt(content, end, enc)}
}

func trailingCR(s string) int {
	if strings.HasSuffix(s, "\r") {
		return 1
	}
	return 0
}

// PositionAt converts a byte offset in content to a Position in enc.
func PositionAt(content string, off int, enc Encoding) Position {
	before := content[:off]
	line := strings.Count(before, "\n")
	lineStart := strings.LastIndexByte(before, '\n') + 1
	return Position{Line: line, Character: Units(before[lineStart:], enc)}
}

// Truncate cuts s to at most n bytes, on a character boundary.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Units counts s in enc: bytes for UTF8, runes for UTF32, and UTF-16 code units otherwise (UTF16
// or ""), a character above U+FFFF being two. An invalid byte counts as one in every encoding,
// as the U+FFFD it decodes to. The inverse is ByteOffset.
func Units(s string, enc Encoding) int {
	switch enc {
	case UTF8:
		return len(s)
	case UTF32:
		return utf8.RuneCountInString(s)
	}
	n := 0
	for _, r := range s {
		n += unitsOf(r)
	}
	return n
}

// ByteOffset is the byte offset in line of character n counted in enc (Units' inverse). A line
// ending in \n, \r\n or \r is measured without it, and n past the line's end gives its end, as
// LSP says; a negative n gives 0; an n that falls inside a character (half a surrogate pair, a
// byte inside a UTF-8 sequence) gives that character's start.
func ByteOffset(line string, n int, enc Encoding) int {
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	units := 0
	for i, r := range line {
		w := 1 // a rune in UTF32; an invalid byte in any encoding
		switch {
		case enc == UTF8:
			_, w = utf8.DecodeRuneInString(line[i:])
		case enc != UTF32:
			w = unitsOf(r)
		}
		if units+w > n {
			return i
		}
		units += w
	}
	return len(line)
}

// unitsOf is r's length in UTF-16 code units; an invalid byte (U+FFFD) is one.
func unitsOf(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}

// languages are the VS Code / LSP language identifiers by extension: what openFile reports and
// what the bridge's language servers are told in didOpen.
var languages = map[string]string{
	".go": "go", ".mod": "go.mod", ".rs": "rust", ".py": "python", ".pyi": "python",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
	".hxx": "cpp", ".m": "objective-c", ".mm": "objective-cpp", ".java": "java", ".rb": "ruby",
	".lua": "lua", ".zig": "zig", ".sh": "shellscript", ".bash": "shellscript", ".json": "json",
	".html": "html", ".css": "css", ".md": "markdown", ".yaml": "yaml", ".yml": "yaml",
	".toml": "toml", ".swift": "swift", ".kt": "kotlin", ".cs": "csharp", ".php": "php",
	".hs": "haskell", ".txt": "plaintext", ".vim": "vim", ".sql": "sql", ".xml": "xml",
}

// KnownLanguageID is the language identifier of path by its extension (any case), or of a file
// named Makefile, and whether it is one known here.
func KnownLanguageID(path string) (string, bool) {
	if l, ok := languages[strings.ToLower(filepath.Ext(path))]; ok {
		return l, true
	}
	if filepath.Base(path) == "Makefile" {
		return "makefile", true
	}
	return "", false
}

// LanguageID is KnownLanguageID, "plaintext" for a file it does not know (VS Code's id for those),
// for editors that do not say.
func LanguageID(path string) string {
	if l, ok := KnownLanguageID(path); ok {
		return l
	}
	return "plaintext"
}
