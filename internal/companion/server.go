// Package companion serves the Gemini CLI and Qwen Code as an "IDE companion" (their
// ide-companion spec, ../shared/other-clis-facts.md sections 1 and 2): MCP over streamable HTTP
// at /mcp on a loopback listener of its own, a Bearer token, a discovery file, the tools
// openDiff and closeDiff on the bridge's one diff engine (ide.Model), and ide/contextUpdate from
// the editor's open files and selection. Each agent gets its own listener, so a diff always
// says which agent proposed it.
package companion

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
)

// Agent is a CLI the companion serves.
type Agent string

const (
	Gemini Agent = "gemini"
	Qwen   Agent = "qwen"
)

// Title is the agent's name for people.
func (a Agent) Title() string { return ide.AgentTitle(string(a)) }

// Config describes one agent's companion server.
type Config struct {
	Agent Agent
	Model *ide.Model
	// PID names the editor in Gemini's file name (the CLI prefers the file of the IDE it runs
	// under); 0: this process.
	PID int
	// Trusted reports whether the user trusts the workspace (internal/trust); true is sent as
	// contextUpdate's isTrusted, nothing otherwise (the CLI's own folder trust decides). Nil: never.
	Trusted func() bool
	// Dir is where the discovery file goes ("": the agent's own place, discovery.go).
	Dir     string
	Version string
	Log     *slog.Logger
	// Orphan is how long a session may have no GET stream open before it is closed as gone
	// (a CLI killed without its DELETE); 0: DefaultOrphan.
	Orphan time.Duration
}

// DefaultOrphan outlasts the CLIs' own reconnects of a dropped GET stream (their SDK tries
// twice, 1 and 2.5 s after the drop) by far.
const DefaultOrphan = 30 * time.Second

// MaxSessions bounds one agent's concurrent sessions; a CLI holds one.
const MaxSessions = 16

// maxBody bounds one POST: openDiff carries a whole file (ide.MaxDiffText) in JSON.
const maxBody = 2*ide.MaxDiffText + 1<<20

// Server is one agent's running companion. Close it to remove its discovery file.
type Server struct {
	cfg   Config
	log   *slog.Logger
	port  int
	token string
	path  string // the discovery file
	ln    net.Listener
	srv   *http.Server
	mcp   *mcp.Server
	done  chan struct{}

	mu       sync.Mutex
	sessions map[string]*session // by Mcp-Session-Id
	closed   bool
	wg       sync.WaitGroup // session goroutines
}

// Start listens on a random loopback port, writes the agent's discovery file and serves.
func Start(cfg Config) (*Server, error) {
	if cfg.Model == nil {
		return nil, errors.New("companion: no model")
	}
	log := cmp.Or(cfg.Log, slog.New(slog.DiscardHandler)).With("agent", string(cfg.Agent))
	token, err := discovery.NewToken()
	if err != nil {
		return nil, fmt.Errorf("companion: no auth token, refusing to start: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("companion: %w", err)
	}
	s := &Server{cfg: cfg, log: log, port: ln.Addr().(*net.TCPAddr).Port, token: token, ln: ln,
		sessions: map[string]*session{}, done: make(chan struct{})}
	s.mcp = s.newMCPServer()
	s.srv = transport.Server(http.HandlerFunc(s.serveHTTP))
	s.srv.ReadHeaderTimeout = 5 * time.Second
	s.srv.MaxHeaderBytes = 16 << 10
	s.srv.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelDebug)
	if s.path, err = s.writeDiscovery(); err != nil {
		ln.Close()
		return nil, err
	}
	go func() {
		defer close(s.done)
		s.srv.Serve(ln)
	}()
	log.Info("companion listening", "port", s.port, "discovery", s.path)
	return s, nil
}

// Port is the companion's port; Token its Bearer token; Path its discovery file.
func (s *Server) Port() int         { return s.port }
func (s *Server) Token() string     { return s.token }
func (s *Server) Path() string      { return s.path }
func (s *Server) Agent() Agent      { return s.cfg.Agent }
func (s *Server) URL() string       { return fmt.Sprintf("http://127.0.0.1:%d/mcp", s.port) }
func (s *Server) model() *ide.Model { return s.cfg.Model }

// FoldersChanged rewrites the discovery file with the model's folders now: the CLIs match their
// folder against workspacePath.
func (s *Server) FoldersChanged() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if _, err := s.writeDiscovery(); err != nil {
		s.log.Warn("companion: rewriting the discovery file", "err", err)
	}
}

// Close removes the discovery file, ends every session (their pending diffs settled as
// rejected by the model) and stops serving. Safe to call more than once.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	sessions := s.sessions
	s.sessions = map[string]*session{}
	s.removeDiscovery() // under mu: no FoldersChanged writes it again
	s.mu.Unlock()
	s.srv.Close() // hanging GET streams too
	<-s.done
	for _, se := range sessions {
		se.ss.Close()
	}
	s.wg.Wait()
}

// serveHTTP is /mcp: the gate first (transport.CheckBearer: no Origin, a loopback Host of this
// port, a loopback peer, the token), then the session the Mcp-Session-Id names, or a new one.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	status, reason := transport.CheckBearer(r, s.port, s.token)
	if status == 0 && r.URL.Path != "/mcp" {
		status, reason = http.StatusNotFound, "the companion serves /mcp only"
	}
	if status != 0 {
		s.log.Info("refused companion request", "status", status, "reason", reason, "remote", r.RemoteAddr)
		transport.Refuse(w, status, reason)
		return
	}
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	}
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		if r.Method != http.MethodPost {
			http.Error(w, "a session starts with POST initialize", http.StatusBadRequest)
			return
		}
		s.startSession(w, r)
		return
	}
	s.mu.Lock()
	se := s.sessions[id]
	s.mu.Unlock()
	if se == nil {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	switch r.Method {
	case http.MethodDelete:
		se.ss.Close()
		w.WriteHeader(http.StatusNoContent)
	case http.MethodGet:
		se.streamOpened()
		se.streams(+1)
		defer se.streams(-1)
		se.t.ServeHTTP(w, r)
	default:
		se.t.ServeHTTP(w, r)
	}
}

// startSession connects a new MCP session and serves its first request (initialize).
func (s *Server) startSession(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed || len(s.sessions) >= MaxSessions {
		s.mu.Unlock()
		http.Error(w, "too many sessions", http.StatusServiceUnavailable)
		return
	}
	se := newSession(s, rand.Text())
	s.sessions[se.id] = se
	s.wg.Add(1)
	s.mu.Unlock()
	ss, err := s.mcp.Connect(context.Background(), keepConn{se.t, &se.conn}, nil)
	if err != nil {
		s.mu.Lock()
		delete(s.sessions, se.id)
		s.mu.Unlock()
		s.wg.Done()
		http.Error(w, "could not start a session", http.StatusInternalServerError)
		return
	}
	se.start(ss)
	se.t.ServeHTTP(w, r)
	if ss.InitializeParams() == nil {
		ss.Close() // not an MCP client: nothing to keep
	}
}

func (s *Server) forget(se *session) {
	s.mu.Lock()
	if s.sessions[se.id] == se {
		delete(s.sessions, se.id)
	}
	s.mu.Unlock()
}

func (s *Server) session(ss *mcp.ServerSession) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[ss.ID()]
}

// keepConn is the SDK's own server transport, with the connection kept: the ide/*
// notifications are not MCP methods, and the SDK sends only those, so the session writes them
// on the connection itself (the standalone GET stream, as the SDK routes a detached write).
type keepConn struct {
	*mcp.StreamableServerTransport
	conn *mcp.Connection
}

func (k keepConn) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := k.StreamableServerTransport.Connect(ctx)
	*k.conn = c
	return c, err
}
