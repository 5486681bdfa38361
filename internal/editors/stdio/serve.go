// Package stdio makes any editor an IDE for Claude: the editor protocol (docs/editor-protocol.md)
// on the bridge's stdin/stdout as an ide.Editor and the editor's events. It translates only:
// every rule lives in package ide, and the bridge is assembled by the caller (Options.Start).
package stdio

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/claudestate"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/exclude"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/pathmap"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// Options configure Serve.
type Options struct {
	// Start assembles the bridge around this editor connection once the editor's initialize
	// described it (the wiring lives with the caller: cmd/claude-ide-bridge). Its error is the
	// editor's -32000 answer; initialize may be retried. Required.
	Start func(Hello) (Bridge, error)
	Log   *slog.Logger
	// PIDPoll is how often the editor's pid is checked (default 500ms): an editor that dies
	// without closing our stdin still ends the connection within a second.
	PIDPoll time.Duration
	// EditorTimeout bounds each request to the editor (default 10s); showDiff gets three times
	// as long and executeCode ten times. A late editor becomes a tool error, never a hang.
	EditorTimeout time.Duration
	// PathMap translates every path between the editor (LOCAL) and the bridge (REMOTE) when
	// the editor runs on another machine (pathmap.go). Empty: paths pass as they are.
	PathMap *pathmap.Map
	// Prefix is what the caller already read from r (it looked at initialize to find a bridge
	// to attach to); it is read first.
	Prefix []byte
	// Attached: the bridge was running before this editor (initialize's result says
	// "attached": true).
	Attached bool
	// Ready runs once initialize's answer was written: what the editor is sent first.
	Ready func()
	// Shutdown runs once a shutdown request was answered (the editor ends the bridge for
	// real); the connection is closed after it.
	Shutdown func()
	// Exclude is used when initialize gives no "exclude" (serve --exclude); nil: the default.
	Exclude *exclude.Set
}

// Hello is one editor connection as its initialize described it: the input the bridge is
// assembled around (Options.Start; serve's terminal fills one too).
type Hello struct {
	Editor  ide.Editor     // requests to this editor, its paths translated with a path map
	Info    ide.EditorInfo // name, capabilities, encoding, timeout
	Folders []string       // initialize's workspaceFolders (the bridge's paths)
	PID     int            // the editor's pid for the lock; 0: none given (or a path map)
	// Code is the editor's language servers for the model's code tools (lspRequest); nil
	// when it declares none or paths are mapped.
	Code   modeltools.Source
	Events ide.Events // tell this editor about Claude clients (clientConnected, ...)
	// StateChanged and TurnEnded tell this editor a session's state (claudeState) and the
	// summary of each ended turn (turnEnded).
	StateChanged func(claudestate.Session)
	TurnEnded    func(review.Summary)
	// Asker is the editor that answers the CLI's permission prompts; nil (or returning nil):
	// none, Claude's terminal asks.
	Asker func() permission.Asker
	// CodexIDE: the editor asks the bridge to answer Codex's /ide (initialize's codexIde).
	CodexIDE bool
}

// Serve speaks the editor protocol on r/w until r ends, the editor's pid dies or ctx ends; what
// happens to the bridge Options.Start gave it then is the caller's decision.
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
	in.rest = opt.Prefix
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
	in.Close() // the duplicate it reads (stdin_unix.go): an attached editor's socket must close
	cancel()
	wg.Wait()
	if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe) {
		err = nil
	}
	return err
}

type server struct {
	opt  Options
	conn *jsonrpc.Conn

	mu    sync.Mutex
	b     Bridge
	pid   int
	ready chan struct{} // closed once initialize succeeded
}

func (s *server) bridge() Bridge {
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
	// Exclude: globs of files whose selections, mentions, open editors, diagnostics and
	// code-tool answers never reach Claude (internal/exclude). Absent: the bridge's (--exclude, else the default);
	// [] shares everything.
	Exclude *[]string `json:"exclude"`
	// CodexIDE: answer the Codex CLI's /ide as serve --codex-ide does (internal/codexctx).
	CodexIDE bool `json:"codexIde"`
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
	if f := methods[req.Method]; f != nil {
		return f(s, b, req)
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
	// The name becomes the lock's ideName, which the CLI shows (/ide) and every lock reader
	// prints: nothing a terminal would act on (a control or bidi character, invalid UTF-8).
	if termtext.Line(p.Name) != p.Name {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: "name" %s holds a control character`, termtext.Line(p.Name))
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
	excl := s.opt.Exclude
	if p.Exclude != nil {
		var err error
		if excl, err = exclude.New(append([]string{}, *p.Exclude...)); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: "exclude": %v`, err)
		}
	}
	conn := s.conn
	b, err := s.opt.Start(Hello{
		Editor:  s.editor(conn),
		Info:    ide.EditorInfo{Name: p.Name, Caps: p.Capabilities, Encoding: p.PositionEncoding, TrackSelection: track, Timeout: s.opt.EditorTimeout, Exclude: excl},
		Folders: p.WorkspaceFolders,
		PID:     p.PID,
		Code:    s.editorCode(conn, p.Capabilities),
		Events: ide.Events{
			ClientConnected: func(id ide.ClientID, agent string, now ide.Agents) {
				conn.Notify(context.Background(), "clientConnected", map[string]any{"clientId": id, "agent": agent, "clients": now.Total(), "agents": now})
			},
			ClientPID: func(id ide.ClientID, pid int) {
				conn.Notify(context.Background(), "clientPid", map[string]any{"clientId": id, "pid": pid})
			},
			ClientDisconnected: func(id ide.ClientID, agent string, now ide.Agents) {
				conn.Notify(context.Background(), "clientDisconnected", map[string]any{"clientId": id, "agent": agent, "clients": now.Total(), "agents": now})
			},
			DiffsSkipped: func(id ide.ClientID, path string) {
				msg := map[string]any{"clientId": id, "message": ide.SkippedNotice(filepath.Base(path))}
				if pm := s.opt.PathMap; pm.Empty() {
					msg["filePath"] = path
				} else if l, err := pm.ToLocal(path); err == nil {
					msg["filePath"] = l
				}
				conn.Notify(context.Background(), "diffsSkipped", msg)
			},
		},
		StateChanged: func(st claudestate.Session) {
			conn.Notify(context.Background(), "claudeState", map[string]any{"sessionId": st.ID, "state": st.State, "reason": st.Reason})
		},
		TurnEnded: func(sum review.Summary) { conn.Notify(context.Background(), "turnEnded", sum) },
		Asker:     askerOf(conn, p.Capabilities),
		CodexIDE:  p.CodexIDE,
	})
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeServerError, "%v", err)
	}
	s.b, s.pid = b, p.PID
	close(s.ready)
	res := struct {
		Session
		IDEName  string `json:"ideName"`
		Attached bool   `json:"attached"`
	}{b.Session(), p.Name, s.opt.Attached}
	if s.opt.Ready == nil {
		return res, nil
	}
	return jsonrpc.Then{Result: res, After: s.opt.Ready}, nil
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
