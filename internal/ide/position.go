package ide

import (
	"path/filepath"
	"strings"
	"unicode/utf16"
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

// Units counts s in enc: bytes for UTF-8, code units for UTF-16 (an invalid byte counts as one).
func Units(s string, enc Encoding) int {
	if enc != UTF16 {
		return len(s)
	}
	n := 0
	for _, r := range s {
		if r == utf8.RuneError {
			n++
			continue
		}
		n += utf16.RuneLen(r)
	}
	return n
}

var languages = map[string]string{
	".go": "go", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".ts": "typescript",
	".tsx": "typescriptreact", ".jsx": "javascriptreact", ".py": "python", ".rs": "rust", ".rb": "ruby",
	".lua": "lua", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".java": "java",
	".kt": "kotlin", ".swift": "swift", ".sh": "shellscript", ".bash": "shellscript", ".md": "markdown",
	".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".html": "html", ".css": "css",
	".txt": "plaintext", ".vim": "vim", ".sql": "sql", ".php": "php", ".cs": "csharp", ".xml": "xml",
}

// LanguageID guesses a VS Code language id from a file name, for editors that do not say.
func LanguageID(path string) string {
	if l, ok := languages[strings.ToLower(filepath.Ext(path))]; ok {
		return l
	}
	if filepath.Base(path) == "Makefile" {
		return "makefile"
	}
	return "plaintext"
}
