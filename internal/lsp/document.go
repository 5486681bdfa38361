package lsp

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// syncState is what a sync sent (or found already sent) for one file.
type syncState struct {
	path    string
	version int32
	sent    uint64
}

// sync sends path's current text on disk to the server: didOpen the first time, didChange
// (the whole text) when it changed, nothing when the server has it. A file that is gone is
// closed in the server (didClose) and its diagnostics forgotten.
func (p *process) sync(ctx context.Context, path string) (syncState, error) {
	select {
	case p.syncing <- struct{}{}:
	case <-ctx.Done():
		return syncState{}, ctx.Err()
	case <-p.gone:
		return syncState{}, p.exited()
	}
	defer func() { <-p.syncing }()
	// The text the server has open is counted in the memory budget as long as it is kept
	// (held by its document); a read that is not kept is let go at once (issue 35 item 5).
	held := membudget.Default.NewGrant()
	kept := false
	defer func() {
		if !kept {
			held.Release()
		}
	}()
	text, rerr := userfile.ReadText(held, path, p.s.m.cfg.MaxFileSize)
	p.mu.Lock()
	doc := p.docs[path]
	p.mu.Unlock()
	if rerr != nil {
		if doc != nil && errors.Is(rerr, fs.ErrNotExist) {
			p.mu.Lock()
			delete(p.docs, path)
			doc.held.Release()
			if pub := p.diags[path]; pub != nil {
				pub.held.Release()
			}
			delete(p.diags, path)
			p.mu.Unlock()
			p.notify(ctx, protocol.MethodTextDocumentDidClose, protocol.DidCloseTextDocumentParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: doc.uri},
			})
		}
		return syncState{}, rerr
	}
	if doc != nil && doc.text == text {
		return syncState{path: path, version: doc.version, sent: doc.sent}, nil
	}
	p.mu.Lock()
	var sent uint64
	if pub := p.diags[path]; pub != nil {
		sent = pub.count
	}
	p.mu.Unlock()
	var err error
	next := &document{uri: uri.File(path), version: 1, text: text, sent: sent, held: held}
	// The message that sends the text is a copy of it while it is written.
	sending := membudget.Default.NewGrant()
	defer sending.Release()
	if err := sending.Add(int64(len(text)), "sending "+filepath.Base(path)+" to "+p.s.name); err != nil {
		return syncState{}, err
	}
	// Open before the server hears of it: its first publication for the file may come at once,
	// and publish keeps an open document's always (MaxDiagnosticFiles).
	p.mu.Lock()
	p.docs[path] = next
	p.mu.Unlock()
	if doc == nil {
		err = p.notify(ctx, protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: next.uri, LanguageID: protocol.LanguageIdentifier(languageID(path)), Version: next.version, Text: text},
		})
	} else {
		next.version = doc.version + 1
		// go.lsp.dev/protocol's change event always sends a range (a zero one would mean an
		// insertion at the start): a whole-text change has none.
		type wholeText struct {
			Text string `json:"text"`
		}
		err = p.notify(ctx, protocol.MethodTextDocumentDidChange, struct {
			TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
			ContentChanges []wholeText                              `json:"contentChanges"`
		}{protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: next.uri}, Version: next.version}, []wholeText{{text}}})
	}
	if err != nil {
		p.mu.Lock()
		if doc == nil {
			delete(p.docs, path)
		} else {
			p.docs[path] = doc
		}
		p.mu.Unlock()
		return syncState{}, err
	}
	kept = true
	if doc != nil {
		doc.held.Release()
	}
	if p.dead() { // markGone may have released the documents before next was one
		held.Release()
	}
	return syncState{path: path, version: next.version, sent: sent}, nil
}

// waitDiagnostics waits until the server has published diagnostics for each state's text, ctx
// ends (its error is returned) or the server dies (ErrServerExited).
func (p *process) waitDiagnostics(ctx context.Context, states []syncState) error {
	for {
		p.mu.Lock()
		ready := true
		for _, st := range states {
			pub := p.diags[st.path]
			// A publication after the text was sent is for it, unless it names an older
			// version (servers that say which version they checked).
			if pub == nil || pub.count <= st.sent || (pub.version != 0 && pub.version < st.version) {
				ready = false
				break
			}
		}
		changed := p.changed
		p.mu.Unlock()
		if ready {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-p.gone:
			return p.exited()
		}
	}
}

// published is a copy of the diagnostics last published for path.
func (p *process) published(path string) []protocol.Diagnostic {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pub := p.diags[path]; pub != nil {
		return slices.Clone(pub.diags)
	}
	return nil
}

// allPublished is every file with at least one diagnostic.
func (p *process) allPublished() []FileDiagnostics {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []FileDiagnostics
	for path, pub := range p.diags {
		if len(pub.diags) > 0 {
			out = append(out, FileDiagnostics{Path: path, Diagnostics: slices.Clone(pub.diags)})
		}
	}
	return out
}

// openPaths lists the open documents.
func (p *process) openPaths() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.docs))
}

// text is the text the server has for an open document.
func (p *process) text(path string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if doc := p.docs[filepath.Clean(path)]; doc != nil {
		return doc.text, true
	}
	return "", false
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
