// Package lsp is the bridge's language-server client: it starts the language servers configured
// for file extensions (lazily, on the first request for one of their files), keeps the files it
// was asked about open in them with their current text on disk, and collects the diagnostics
// they publish. The serve command answers getDiagnostics from it; the model tools (definition,
// references, ...) send their requests through Manager.Request.
//
// The protocol types are go.lsp.dev/protocol's; the JSON-RPC peer is the bridge's own
// internal/jsonrpc (Content-Length framing, concurrent dispatch, bounded writes), so that one
// JSON-RPC implementation serves every channel of the bridge.
//
// Positions exchanged with servers are UTF-16 code units, the protocol's default (the client
// offers no other encoding, so every server agrees); Manager.Diagnostics converts ranges to
// Config.Encoding with the text the server was given.
package lsp
