// Package stdio makes any editor an IDE for Claude: the bridge runs as the editor's child and
// speaks the editor protocol (docs/editor-protocol.md) on stdin/stdout. It translates only; every
// rule lives in package ide.
package stdio

import (
	"context"
	"errors"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/mcp"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/pathmap"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
)

// Options configure Serve.
type Options struct {
	Port    int
	LockDir string
	Trace   io.Writer
	Log     *slog.Logger
	// PIDPoll is how often the editor's pid is checked (default 500ms): an editor that dies
	// without closing our stdin still ends the bridge within a second.
	PIDPoll time.Duration
	// EditorTimeout bounds each request to the editor (default 10s); showDiff gets three times
	// as long and executeCode ten times. A late editor becomes a tool error, never a hang.
	EditorTimeout time.Duration
	// Keepalive is the WebSocket ping interval (default 30s).
	Keepalive time.Duration
	// MaxClients bounds concurrent Claude connections (default 64).
	MaxClients int
	// LSP are language servers that answer getDiagnostics when the editor declares no
	// diagnostics capability of its own (Nova). They run in the first workspace folder.
	LSP []lsp.ServerConfig
	// PathMap translates every path between the editor (LOCAL) and the bridge (REMOTE) when
	// the editor runs on another machine (pathmap.go). Empty: paths pass as they are.
	PathMap *pathmap.Map
}

// Serve speaks the editor protocol on r/w until r ends, the editor's pid dies or ctx ends. Then
// it closes Claude's connections, settles pending diffs, removes the lock and returns.
func Serve(ctx context.Context, r io.Reader, w io.WriteCloser, opt Options) error {
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	if opt.PIDPoll == 0 {
		opt.PIDPoll = 500 * time.Millisecond
	}
	s := &server{opt: opt, ready: make(chan struct{})}
	growPipe(r)
	growPipe(w)
	in := newInput(r)
	s.conn = jsonrpc.NewConn(jsonrpc.NewDetectStream(in, closers{w, w, in}), s.handler())
	s.conn.OnError = func(err error) { opt.Log.Warn("editor message", "err", err) }
	// In a flood of selections only the last of each batch read is decoded (CPU: docs/performance.md).
	s.conn.Latest = func(method string) bool { return method == "selectionChanged" }
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.watchPID(ctx)
	}()
	err := s.conn.Run(ctx)
	cancel()
	wg.Wait()
	if b := s.bridge(); b != nil {
		b.Close()
	}
	if s.lsp != nil {
		s.lsp.Close()
	}
	if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	return err
}

type server struct {
	opt  Options
	conn *jsonrpc.Conn

	mu    sync.Mutex
	b     *bridge.Bridge
	lsp   *lsp.Manager // nil without language servers
	pid   int
	ready chan struct{} // closed once initialize succeeded
}

func (s *server) bridge() *bridge.Bridge {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b
}

func (s *server) watchPID(ctx context.Context) {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return
	}
	s.mu.Lock()
	pid := s.pid
	s.mu.Unlock()
	if pid <= 0 || pid == os.Getpid() {
		return
	}
	t := time.NewTicker(s.opt.PIDPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if processGone(pid) {
				s.opt.Log.Info("editor process is gone", "pid", pid)
				s.conn.Close()
				return
			}
		}
	}
}

// InitializeParams is the editor's handshake.
type InitializeParams struct {
	Name             string           `json:"name"`
	PID              int              `json:"pid"`
	WorkspaceFolders []string         `json:"workspaceFolders"`
	PositionEncoding ide.Encoding     `json:"positionEncoding"`
	TrackSelection   *bool            `json:"trackSelection"`
	Capabilities     ide.Capabilities `json:"capabilities"`
}

func (s *server) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if req.Method == "initialize" {
		return s.initialize(req)
	}
	b := s.bridge()
	if b == nil {
		if !req.IsCall() {
			return nil, nil
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeNotInitialized, "not initialized: send initialize first")
	}
	m := b.Model
	switch req.Method {
	case "selectionChanged":
		var sel ide.Selection
		if err := jsonrpc.UnmarshalParams(req.Params, &sel); err != nil {
			return nil, err
		}
		if sel.FilePath == "" {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: "filePath" is required`)
		}
		m.SelectionChanged(sel)
		return nil, nil
	case "workspaceFoldersChanged":
		var p struct {
			Folders []string `json:"folders"`
		}
		if err := jsonrpc.UnmarshalParams(req.Params, &p); err != nil {
			return nil, err
		}
		m.SetFolders(ide.CleanFolders(p.Folders))
		return nil, nil
	case "atMentioned":
		var p ide.Mention
		if err := jsonrpc.UnmarshalParams(req.Params, &p); err != nil {
			return nil, err
		}
		n, held, err := m.AtMentioned(p)
		if err != nil {
			return nil, err
		}
		return map[string]any{"delivered": n, "held": held}, nil
	case "diffAccepted":
		var p struct {
			TabName  string   `json:"tabName"`
			Contents ide.Text `json:"contents"` // passed to Claude as it came
			// Proposal, instead of contents: the user accepted the proposal of that number
			// (showDiff's "proposal") without an edit; Claude gets its text as it sent it.
			Proposal *uint64 `json:"proposal"`
		}
		if err := jsonrpc.UnmarshalParams(req.Params, &p); err != nil {
			return nil, err
		}
		if p.Contents.IsZero() {
			if p.Proposal != nil {
				return nil, m.DiffAcceptedProposal(p.TabName, *p.Proposal)
			}
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: "contents" is required`)
		}
		return nil, m.DiffAcceptedText(p.TabName, p.Contents)
	case "diffRejected":
		var p struct {
			TabName string `json:"tabName"`
		}
		if err := jsonrpc.UnmarshalParams(req.Params, &p); err != nil {
			return nil, err
		}
		return nil, m.DiffRejected(p.TabName)
	case "closeAllDiffs":
		closed, restored, err := m.CloseAllDiffs()
		if err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeServerError, "%v", err)
		}
		if restored == nil {
			restored = []string{}
		}
		return map[string]any{"closed": closed, "restored": restored}, nil
	case "status":
		return map[string]any{"port": b.Port(), "lockPath": b.LockPath(), "clients": m.Clients(), "diffs": m.Diffs()}, nil
	}
	if !req.IsCall() {
		return nil, nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
}

func (s *server) initialize(req *jsonrpc.Request) (any, error) {
	var p InitializeParams
	if err := jsonrpc.UnmarshalParams(req.Params, &p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: "name" is required`)
	}
	if err := ide.CheckPID(p.PID); err != nil {
		return nil, err
	}
	switch p.PositionEncoding {
	case "":
		p.PositionEncoding = ide.UTF8
	case ide.UTF8, ide.UTF16:
	default:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: "positionEncoding" must be "utf-8" or "utf-16"`)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeNotInitialized, "already initialized")
	}
	track := p.TrackSelection == nil || *p.TrackSelection
	conn := s.conn
	editor := s.editor(conn)
	info := ide.EditorInfo{Name: p.Name, Caps: p.Capabilities, Encoding: p.PositionEncoding, TrackSelection: track, Timeout: s.opt.EditorTimeout}
	var m *lsp.Manager
	if len(s.opt.LSP) > 0 && !info.Caps.Diagnostics {
		root, err := lspRoot(p.WorkspaceFolders)
		if err == nil {
			m, err = lsp.New(lsp.Config{Root: root, Servers: s.opt.LSP, Log: s.opt.Log, Encoding: string(info.Encoding), Trust: trust.Gate(root)})
		}
		if err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeServerError, "language servers: %v", err)
		}
		editor, info = lsp.WithDiagnostics(editor, info, m)
	}
	b, err := bridge.Start(bridge.Config{
		Editor:    editor,
		Info:      info,
		Folders:   p.WorkspaceFolders,
		PID:       p.PID,
		Port:      s.opt.Port,
		LockDir:   s.opt.LockDir,
		Trace:     s.opt.Trace,
		Keepalive: s.opt.Keepalive, MaxClients: s.opt.MaxClients,
		EditorCode: s.editorCode(conn, p.Capabilities),
		Code:       lspCode(m),
		Log:        s.opt.Log,
		Events: ide.Events{
			ClientConnected: func(id ide.ClientID, n int) {
				conn.Notify(context.Background(), "clientConnected", map[string]any{"clientId": id, "clients": n})
			},
			ClientDisconnected: func(id ide.ClientID, n int) {
				conn.Notify(context.Background(), "clientDisconnected", map[string]any{"clientId": id, "clients": n})
			},
		},
	})
	if err != nil {
		if m != nil {
			m.Close()
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeServerError, "starting the bridge: %v", err)
	}
	s.b, s.pid, s.lsp = b, p.PID, m
	close(s.ready)
	return map[string]any{
		"port": b.Port(), "lockPath": b.LockPath(), "ideName": p.Name, "version": mcp.Version,
		"env": b.Env(), "envPrefix": discovery.EnvPrefix(b.Port()),
		"mcpConfig": b.MCPConfigPath(),
	}, nil
}

// editorCode is the editor's language servers for the model's code tools (lspRequest), when it
// declares them. Not with a path map: paths inside LSP params and results (URIs in any member)
// are not translated, so the bridge's own servers answer instead.
func (s *server) editorCode(conn *jsonrpc.Conn, caps ide.Capabilities) modeltools.Source {
	if !caps.LSPRequest || !s.opt.PathMap.Empty() {
		return nil
	}
	return remote{conn}
}

// lspRoot is the language servers' workspace: the editor's first folder, or the current
// directory.
func lspRoot(folders []string) (string, error) {
	if len(folders) > 0 && folders[0] != "" {
		return filepath.Abs(folders[0])
	}
	return os.Getwd()
}

// lspCode is the bridge's own language servers for the model's code tools, nil without them.
func lspCode(m *lsp.Manager) modeltools.Source {
	if m == nil {
		return nil
	}
	return modeltools.LSPSource(m)
}
