package lsp

import (
	"path/filepath"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// readBounded reads a regular file of at most max bytes through userfile, the bridge's one
// bounded read of user files (/proc, /sys, /dev refused; a FIFO never opened), its text counted
// in held (the memory budget) until the caller releases it.
func readBounded(held *membudget.Grant, path string, max int64) (string, error) {
	return userfile.ReadText(held, path, max)
}

// languageIDs are the protocol's language identifiers by extension.
var languageIDs = map[string]string{
	".go": "go", ".mod": "go.mod", ".rs": "rust", ".py": "python", ".pyi": "python",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
	".hxx": "cpp", ".m": "objective-c", ".mm": "objective-cpp", ".java": "java", ".rb": "ruby",
	".lua": "lua", ".zig": "zig", ".sh": "shellscript", ".json": "json", ".html": "html",
	".css": "css", ".md": "markdown", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml",
	".swift": "swift", ".kt": "kotlin", ".cs": "csharp", ".php": "php", ".hs": "haskell",
}

// LanguageID is the protocol's language identifier for path's extension (the extension without
// its dot when it is not a known one).
func LanguageID(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if id, ok := languageIDs[ext]; ok {
		return id
	}
	return strings.TrimPrefix(ext, ".")
}
