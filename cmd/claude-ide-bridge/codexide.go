package main

import (
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/codexctx"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
)

// codexIDE answers Codex's /ide on its context socket for m (serve --codex-ide), or returns nil
// with one log line saying why not: another program owns the socket, or it is not safe. The
// bridge runs on either way.
func (a assembly) codexIDE(m *ide.Model) *codexctx.Server {
	s, err := codexctx.Start(codexctx.Config{Model: m, Log: a.Log})
	if err != nil {
		a.Log.Warn("not answering Codex's /ide: "+err.Error(), "see", "docs/codex.md")
		return nil
	}
	a.Log.Info("answering Codex's /ide", "socket", s.Path())
	return s
}
