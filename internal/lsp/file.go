package lsp

import (
	"path/filepath"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// readBounded reads a regular file of at most max bytes through userfile, the bridge's one
// bounded read of user files (/proc, /sys, /dev refused; a FIFO never opened), its text counted
// in held (the memory budget) until the caller releases it.
func readBounded(held *membudget.Grant, path string, max int64) (string, error) {
	return userfile.ReadText(held, path, max)
}

// languageID is what a server is told path's language is (ide.KnownLanguageID). For an extension
// not known there it is the extension without its dot, not "plaintext": a server the user
// configured for ".nix" files is told "nix", not that the file is plain text.
func languageID(path string) string {
	if id, ok := ide.KnownLanguageID(path); ok {
		return id
	}
	return strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
}
