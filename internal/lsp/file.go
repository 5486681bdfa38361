package lsp

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// readBounded reads a regular file of at most max bytes.
func readBounded(path string, max int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > max {
		return "", fmt.Errorf("%s is too large for a language server (%d bytes, limit %d)", path, fi.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return "", err
	}
	if int64(len(b)) > max {
		return "", fmt.Errorf("%s is too large for a language server (over %d bytes)", path, max)
	}
	return string(b), nil
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
