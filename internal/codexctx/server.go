// Package codexctx answers the Codex TUI's `/ide` context requests with what the editor
// shares: the active file, its selection and the open tabs (docs/codex.md).
//
// Codex asks on a Unix socket, $TMPDIR/codex-ipc/ipc-<uid>.sock, that the VS Code or Cursor
// extension (or the desktop app) normally serves as a router. Frames are a 4-byte little-endian
// length and UTF-8 JSON. Requests are {"type":"request","requestId","method","params"}; this
// server answers initialize (result.clientId), ide-context (result.ideContext) and, for any
// other method, the routers' "no-handler-for-request" error; a client-discovery-request is
// answered canHandle false and broadcasts are ignored. It serves only when the user asked
// (serve --codex-ide) and never takes the socket from a live owner.
//
// Every sharing rule of internal/ide holds, because the context comes from the Model's own
// accessors: LatestSelection and OpenEditors (nothing while paused, never an excluded file).
package codexctx

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/attach"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
)

// editorBudget bounds the editor's answer for the open tabs: Codex gives a prompt's context
// request 500 ms in all, and an answer without tabs beats none.
const editorBudget = 300 * time.Millisecond

// Config is what a Server serves.
type Config struct {
	Model *ide.Model
	Log   *slog.Logger
	// Path is the socket; "": SocketPath().
	Path string
}

// Server answers Codex on its context socket until Close.
type Server struct {
	ln    *attach.Listener
	model *ide.Model
	log   *slog.Logger
	id    string

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Start listens on the socket (see listen for what it refuses) and serves it. An error wrapping
// ErrBusy means another program answers there; the bridge goes on without it.
func Start(c Config) (*Server, error) {
	c.Log = cmp.Or(c.Log, slog.New(slog.DiscardHandler))
	c.Path = cmp.Or(c.Path, SocketPath())
	ln, stale, err := listen(c.Path)
	if err != nil {
		return nil, err
	}
	if stale {
		c.Log.Info("Codex's /ide: replaced a stale socket nothing answered on", "path", c.Path)
	}
	s := &Server{ln: ln, model: c.Model, log: c.Log, id: "claude-ide-bridge-" + strconv.Itoa(os.Getpid()),
		conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Path is the socket's path.
func (s *Server) Path() string { return s.ln.Path() }

// Close stops listening, removes the socket and ends every connection.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.ln.Close()
	s.wg.Wait()
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept(func(uid int, err error) {
			s.log.Warn("Codex's /ide: refused a connection of another user", "uid", uid, "err", err)
		})
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

// message is any frame; only the fields this server reads or echoes.
type message struct {
	Type      string          `json:"type"`
	RequestID string          `json:"requestId"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
}

func (s *Server) serve(c net.Conn) {
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
		s.wg.Done()
	}()
	for {
		b, err := readFrame(c, MaxRequest)
		if err != nil {
			if !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				s.log.Warn("Codex's /ide: connection dropped", "err", err)
			}
			return
		}
		var m message
		if err := json.Unmarshal(b, &m); err != nil {
			s.log.Warn("Codex's /ide: a frame that is not a JSON object, ignored", "err", err)
			continue
		}
		out := s.answer(m)
		if out == nil {
			continue
		}
		if err := writeFrame(c, out); err != nil {
			return
		}
	}
}

// answer is the frame to send back for m, or nil.
func (s *Server) answer(m message) []byte {
	switch m.Type {
	case "request":
	case "client-discovery-request":
		// Asked whether this client handles a request routed to others: it handles none.
		return mustJSON(map[string]any{"type": "client-discovery-response", "requestId": m.RequestID,
			"response": map[string]any{"canHandle": false}})
	default: // broadcasts and responses to nothing we asked
		return nil
	}
	switch m.Method {
	case "initialize":
		return s.success(m, map[string]any{"clientId": s.id})
	case "ide-context":
		var p struct {
			WorkspaceRoot string `json:"workspaceRoot"`
		}
		_ = json.Unmarshal(m.Params, &p) // a missing root matches no folder
		folder := folderFor(s.model.Folders(), p.WorkspaceRoot)
		if folder == "" {
			return s.failure(m, "no-client-found")
		}
		ctx, cancel := context.WithTimeout(context.Background(), editorBudget)
		defer cancel()
		ic, err := buildContext(ctx, s.model, folder)
		if err != nil {
			s.log.Debug("Codex's /ide: open editors not listed", "err", err)
		}
		return s.success(m, map[string]any{"ideContext": ic})
	}
	return s.failure(m, "no-handler-for-request")
}

func (s *Server) success(m message, result any) []byte {
	return mustJSON(map[string]any{"type": "response", "requestId": m.RequestID, "resultType": "success",
		"method": m.Method, "handledByClientId": s.id, "result": result})
}

func (s *Server) failure(m message, reason string) []byte {
	return mustJSON(map[string]any{"type": "response", "requestId": m.RequestID, "resultType": "error",
		"method": m.Method, "handledByClientId": s.id, "error": reason})
}

// mustJSON encodes v, made only of maps, strings and the context's structs: it cannot fail.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
