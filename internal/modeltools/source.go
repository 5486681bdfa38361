// Package modeltools is the model's own MCP server: code navigation tools (definition,
// references, hover, symbols, implementations, callers, rename preview) answered by language
// servers, with positions a model can give (a 1-based line and the symbol's name) and compact
// text results (path:line:col and the line). It is served over streamable HTTP by the
// official MCP go-sdk; the bridge mounts it at /mcp behind its own bearer token.
//
// Answers come from a Source: the editor's language servers when it has them (Neovim's vim.lsp
// clients, through the editor protocol's lspRequest), else the bridge's own clients.
package modeltools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Source sends one LSP request to the language server responsible for path (absolute).
//
// Positions in params are UTF-16 code units (the LSP default); Position values built by this
// package also carry the other units (see Position), so a source whose server negotiated
// UTF-8 or UTF-32 can pick them. Positions in result are in the unit Answer.Encoding names.
// A source with no server for that file returns a *NoServerError; any other error is the
// server's or the transport's. Implementations must be safe for concurrent use.
type Source interface {
	Request(ctx context.Context, path, method string, params, result any) (Answer, error)
}

// Answer tells how to read a result.
type Answer struct {
	Encoding string // "utf-8", "utf-16" (default when empty) or "utf-32"
	Note     string // said to the model, e.g. that the editor loaded the file into a hidden buffer
}

// NoServerError says that a source has no language server for a file, and why.
type NoServerError struct {
	Source string // "Neovim", "the bridge"
	Reason string // "no LSP client attached to main.go", "no --lsp server for .go files"
}

func (e *NoServerError) Error() string { return e.Source + ": " + e.Reason }

// SourceFunc adapts a function to a Source.
type SourceFunc func(ctx context.Context, path, method string, params, result any) (Answer, error)

// Request calls f.
func (f SourceFunc) Request(ctx context.Context, path, method string, params, result any) (Answer, error) {
	return f(ctx, path, method, params, result)
}

// First returns a Source that asks each source in turn and answers with the first that has a
// language server for the file. Nil sources are skipped. When none has one, the error names
// every reason, so the model (and the user reading along) knows what is missing.
func First(sources ...Source) Source {
	return chain(slices.DeleteFunc(slices.Clone(sources), func(s Source) bool { return s == nil }))
}

type chain []Source

func (c chain) Request(ctx context.Context, path, method string, params, result any) (Answer, error) {
	var reasons []string
	for _, s := range c {
		a, err := s.Request(ctx, path, method, params, result)
		var ns *NoServerError
		if errors.As(err, &ns) {
			reasons = append(reasons, ns.Error())
			continue
		}
		return a, err
	}
	if len(reasons) == 0 {
		reasons = append(reasons, "no source of language intelligence is configured")
	}
	return Answer{}, fmt.Errorf("no language server for %s (%s)", path, strings.Join(reasons, "; "))
}
