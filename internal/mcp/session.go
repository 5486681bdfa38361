// Package mcp serves the Model Context Protocol over one connection: the handshake, tools/list,
// tools/call and the IDE's custom notifications. It knows nothing about editors or sockets.
package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// Versions are the protocol versions this server speaks, newest first. A client asking for
// another gets Fallback (the version the IDE protocol is based on, spec 000).
var Versions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Fallback answers an initialize whose version is not in Versions.
const Fallback = "2025-03-26"

// Negotiate returns the version to answer a client that asked for requested.
func Negotiate(requested string) string {
	if slices.Contains(Versions, requested) {
		return requested
	}
	return Fallback
}

// ServerName appears in initialize's serverInfo, with the version Serve is given.
const ServerName = "claude-ide-bridge"

// Conn is the client side of the transport the session needs: a message stream that can also
// take fire-and-forget and latest-wins messages (see ide.Client).
type Conn interface {
	jsonrpc.Stream
	ide.Client
}

// Serve runs one MCP session until the connection ends. The client is registered with the model
// for its lifetime; its pending diffs are settled when it goes.
func Serve(ctx context.Context, c Conn, model *ide.Model, version string, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	id := model.Connect(c)
	defer model.Disconnect(id)
	s := &session{model: model, id: id, version: version, log: log.With("client", uint64(id))}
	conn := jsonrpc.NewConn(c, s.handle)
	model.SetDrain(id, conn.Drain)
	conn.OnError = func(err error) { s.log.Warn("bad message", "err", err) }
	defer s.stopListenTimer()
	return conn.Run(ctx)
}

// When a client starts getting notifications. CLI 2.1.328 drops selection_changed and
// at_mentioned that arrive before it has finished its handshake, which ends with tools/list,
// prompts/list and resources/list (in any order) and some work of its own after them: seen on the
// wire, a selection sent right after those answers is ignored and one sent ~50 ms later is not.
// So notifications start listenAfterList after the last list call, or listenFallback after
// ide_connected for a client that lists nothing. Until then the model keeps them for it.
// 250 ms was not enough on a loaded 2-core machine (CI: the CLI dropped a selection and a mention
// sent 250 ms after its lists while the rest of the suite ran); 1 s only delays the first
// notification after a connect.
var (
	listenAfterList = time.Second
	listenFallback  = 2 * time.Second
)

// listenAfter (re)starts the timer after which the model treats the client as listening.
func (s *session) listenAfter(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		if d == listenFallback {
			return // a list call already set the shorter wait
		}
		s.timer.Stop()
	}
	s.timer = time.AfterFunc(d, func() { s.model.Listening(s.id) })
}

func (s *session) stopListenTimer() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
	}
}

type session struct {
	model   *ide.Model
	id      ide.ClientID
	version string // the bridge's, for serverInfo
	log     *slog.Logger

	mu    sync.Mutex
	timer *time.Timer // starts notifications; see listenAfter
}

func (s *session) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
			ClientInfo      struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"clientInfo"`
		}
		if err := jsonrpc.UnmarshalParams(req.Params, &p); err != nil {
			return nil, err
		}
		v := Negotiate(p.ProtocolVersion)
		s.log.Info("initialize", "clientName", p.ClientInfo.Name, "clientVersion", p.ClientInfo.Version, "asked", p.ProtocolVersion, "answered", v)
		return map[string]any{
			"protocolVersion": v,
			"capabilities": map[string]any{
				"tools":     map[string]any{"listChanged": false},
				"prompts":   map[string]any{"listChanged": false},
				"resources": map[string]any{"listChanged": false, "subscribe": false},
				"logging":   map[string]any{},
			},
			"serverInfo": map[string]any{"name": ServerName, "version": s.version},
		}, nil
	case "notifications/initialized":
		s.model.Ready(s.id)
		return nil, nil
	case "ide_connected":
		var p struct {
			PID json.RawMessage `json:"pid"` // as it came: a number, or a string from some editors
		}
		_ = jsonrpc.UnmarshalParams(req.Params, &p)
		// Logged only: a pid is not unique across containers and is reused (spec 000).
		s.log.Info("ide_connected", "pid", string(p.PID))
		if pid, err := strconv.Atoi(strings.Trim(string(p.PID), `"`)); err == nil {
			s.model.ClientPID(s.id, pid)
		}
		s.listenAfter(listenFallback)
		return nil, nil
	case "ping":
		return map[string]any{}, nil
	case "tools/list":
		s.listenAfter(listenAfterList)
		return map[string]any{"tools": s.model.Tools()}, nil
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := jsonrpc.UnmarshalParams(req.Params, &p); err != nil {
			return nil, err
		}
		if err := jsonrpc.Required(p.Name != "", "name"); err != nil {
			return nil, err
		}
		s.log.Debug("tools/call", "tool", p.Name)
		r, err := s.model.CallTool(ctx, s.id, p.Name, p.Arguments)
		if err != nil {
			return nil, err
		}
		return toolResult(r), nil
	case "prompts/list":
		s.listenAfter(listenAfterList)
		return map[string]any{"prompts": []any{}}, nil
	case "resources/list":
		s.listenAfter(listenAfterList)
		return map[string]any{"resources": []any{}}, nil
	case "resources/templates/list":
		return map[string]any{"resourceTemplates": []any{}}, nil
	case "logging/setLevel":
		return map[string]any{}, nil
	}
	if !req.IsCall() {
		return nil, nil // unknown notifications (notifications/cancelled, ...) are ignored
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
}
