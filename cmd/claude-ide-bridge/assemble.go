package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/claudecmd"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/codexctx"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/companion"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/editors/stdio"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
)

// This file is the one place a bridge is put together: `serve` (the terminal) and
// `serve --stdio` (an editor plugin) differ only in the editor connection (stdio.Hello: what an
// editor's initialize describes, or serve's terminal) they hand to assembly.start.

// assembly is what every bridge of this process is built with, whatever its editor.
type assembly struct {
	Port       int
	Trace      io.Writer
	Log        *slog.Logger
	Keepalive  time.Duration
	MaxClients int
	// LSP are the bridge's own language servers; they answer getDiagnostics for an editor
	// without that capability (the terminal, Nova) and back the model's code tools.
	LSP []lsp.ServerConfig
	// CodexIDE: answer Codex's /ide context socket (codexide.go); an editor may ask too.
	CodexIDE bool
	// Agents are the other CLIs served as an IDE companion beside Claude (internal/companion);
	// Qwen Code only when it is set up for this user (companion.QwenDir).
	Agents []companion.Agent
}

// running is an assembled bridge and what it owns besides.
type running struct {
	*bridge.Bridge
	lsp   *lsp.Manager     // nil without language servers
	codex *codexctx.Server // nil unless CodexIDE and the socket was free

	mu         sync.Mutex // companions is set after the bridge, whose events may come first
	companions []*companion.Server
}

// agents are the companions serving other CLIs.
func (r *running) agents() []*companion.Server {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.companions
}

// editorBridge adapts a running bridge to what the editor protocol needs of it (stdio.Bridge).
type editorBridge struct{ b *running }

func (e editorBridge) Model() *ide.Model { return e.b.Model }

func (e editorBridge) Session() stdio.Session {
	return stdio.Session{Port: e.b.Port(), LockPath: e.b.LockPath(), Version: version, Env: e.b.Env(), MCPConfig: e.b.MCPConfigPath()}
}

func (e editorBridge) ClaudeCommand(r claudecmd.Request) (claudecmd.Command, error) {
	return claudeCommand(e.b, r)
}

func (e editorBridge) Review(r review.Request) (review.Answer, error) {
	if e.b.Review == nil {
		return review.Answer{}, errors.New("this bridge keeps no record of turns")
	}
	return e.b.Review.Do(r)
}

func (e editorBridge) Permissions() *permission.Broker { return e.b.Permissions }

func (e editorBridge) UserSaved(path string) {
	if e.b.Review != nil {
		e.b.Review.UserSaved(path)
	}
}

// lspError is a failure to set up the language servers (not to start the bridge).
type lspError struct{ err error }

func (e lspError) Error() string { return "language servers: " + e.err.Error() }

// start assembles a bridge around e: the language servers (when configured and the editor has
// no diagnostics of its own), the bridge's listener, lock and model.
func (a assembly) start(e stdio.Hello) (*running, error) {
	r := &running{}
	// The companions' discovery files name the folders too.
	userFolders := e.Events.FoldersChanged
	e.Events.FoldersChanged = func(f []string) {
		for _, c := range r.agents() {
			c.FoldersChanged()
		}
		if userFolders != nil {
			userFolders(f)
		}
	}
	editor, info := e.Editor, e.Info
	var code modeltools.Source // the model's code tools (/mcp) ask the same servers
	if len(a.LSP) > 0 && !info.Caps.Diagnostics {
		var err error
		if r.lsp, err = a.languageServers(e.Folders, info.Encoding, a.LSP); err != nil {
			return nil, lspError{err}
		}
		editor, info = lsp.WithDiagnostics(editor, info, r.lsp)
		code = r.lsp.ToolSource()
	}
	b, err := bridge.Start(bridge.Config{
		Editor: editor, Info: info, Folders: e.Folders, PID: e.PID,
		Port: a.Port, Trace: a.Trace, Log: a.Log, Keepalive: a.Keepalive, MaxClients: a.MaxClients, Version: version,
		EditorCode: e.Code, Code: code, Events: e.Events,
		// Every turn's changes are kept (internal/review), the workspace watched while a turn runs.
		Review: &review.Config{Watch: true, TurnEnded: e.TurnEnded}, StateChanged: e.StateChanged,
		Asker: e.Asker,
	})
	if err != nil {
		if r.lsp != nil {
			r.lsp.Close()
		}
		return nil, err
	}
	r.Bridge = b
	if a.CodexIDE || e.CodexIDE {
		r.codex = a.codexIDE(b.Model)
	}
	cs := a.startCompanions(b, e)
	r.mu.Lock()
	r.companions = cs
	r.mu.Unlock()
	return r, nil
}

// startCompanions serves the other agents on the bridge's model. One that cannot start (its
// discovery folder refused, say) is logged and left out: Claude's bridge runs without it.
func (a assembly) startCompanions(b *bridge.Bridge, e stdio.Hello) []*companion.Server {
	var out []*companion.Server
	folders := b.Model.Folders()
	trusted := func() bool { return len(folders) > 0 && trust.Gate(folders[0])() == nil }
	for _, ag := range a.Agents {
		if _, ok := companion.QwenDir(); ag == companion.Qwen && !ok {
			continue
		}
		c, err := companion.Start(companion.Config{Agent: ag, Model: b.Model, PID: e.PID, Trusted: trusted, Version: version, Log: a.Log})
		if err != nil {
			a.Log.Warn("not serving "+ag.Title(), "err", err)
			continue
		}
		out = append(out, c)
	}
	return out
}

// languageServers is the bridge's own language-server manager for the workspace: servers start
// on the first request, and only in a folder the user trusts (internal/trust).
func (a assembly) languageServers(folders []string, enc ide.Encoding, servers []lsp.ServerConfig) (*lsp.Manager, error) {
	root, err := lspRoot(folders)
	if err != nil {
		return nil, err
	}
	return lsp.New(lsp.Config{Root: root, Servers: servers, Log: a.Log, Encoding: enc, Trust: trust.Gate(root)})
}

// Close ends the bridge (lock removed, diffs settled, clients closed), then its language
// servers: no getDiagnostics is running any more by then.
func (r *running) Close() {
	if r.codex != nil {
		r.codex.Close()
	}
	for _, c := range r.agents() {
		c.Close() // their discovery files go with the lock; their pending diffs are settled
	}
	r.Bridge.Close()
	if r.lsp != nil {
		r.lsp.Close()
	}
}

// lspRoot is the language servers' workspace: the first folder, or the current directory.
func lspRoot(folders []string) (string, error) {
	if len(folders) > 0 && folders[0] != "" {
		return filepath.Abs(folders[0])
	}
	return os.Getwd()
}

// startError is how serve --stdio reports a bridge that did not start to the editor.
func startError(err error) error {
	if _, ok := err.(lspError); ok {
		return err
	}
	return fmt.Errorf("starting the bridge: %w", err)
}
