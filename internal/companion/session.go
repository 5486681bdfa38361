package companion

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
)

// session is one CLI's MCP session, and that CLI as a client of the model: its diffs are the
// model's (one pending per tab, the proposal's number, the memory budget, the editor's view),
// and the selection the model fans out reaches it as a contextUpdate.
type session struct {
	srv    *Server
	id     string
	t      *mcp.StreamableServerTransport
	conn   mcp.Connection // set by keepConn.Connect
	ss     *mcp.ServerSession
	client ide.ClientID
	ctx    context.Context
	cancel context.CancelFunc
	poke   chan struct{} // buffered 1: the context may have changed
	opened chan struct{} // closed when the CLI's GET stream arrives
	once   sync.Once

	mu        sync.Mutex
	proposals map[string]*proposal // by filePath, while its diff is open
	open      int                  // GET streams open now
	orphan    *time.Timer          // closes the session; armed while open == 0
}

// proposal is one openDiff of the session.
type proposal struct {
	text    string // proposed, then accepted
	closing bool   // closeDiff asked for no notification of its outcome
}

func newSession(s *Server, id string) *session {
	ctx, cancel := context.WithCancel(context.Background())
	return &session{srv: s, id: id, t: &mcp.StreamableServerTransport{SessionID: id}, ctx: ctx, cancel: cancel,
		poke: make(chan struct{}, 1), opened: make(chan struct{}),
		proposals: map[string]*proposal{}}
}

// start registers the session with the model and runs it until the SDK session ends.
func (se *session) start(ss *mcp.ServerSession) {
	se.ss = ss
	se.client = se.srv.model().Connect(modelClient{se})
	se.streams(0) // no GET stream yet: one must come within the grace
	go se.sendContext()
	go func() {
		defer se.srv.wg.Done()
		ss.Wait()
		se.mu.Lock()
		se.orphan.Stop()
		se.mu.Unlock()
		se.cancel()
		se.srv.forget(se)
		se.srv.model().Disconnect(se.client) // its pending diffs settle as rejected
	}()
}

// streams counts the session's open GET streams by delta. A CLI holds one while it runs; with
// none open for the Orphan grace the CLI is gone (killed: no DELETE comes, and streamable HTTP
// has no other sign), and the session is closed, so the editor no longer counts it and its
// pending diffs settle as rejected.
func (se *session) streams(delta int) {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.open += delta
	if se.orphan != nil {
		se.orphan.Stop()
	}
	if se.open == 0 {
		grace := se.srv.cfg.Orphan
		if grace <= 0 {
			grace = DefaultOrphan
		}
		se.orphan = time.AfterFunc(grace, func() {
			se.mu.Lock()
			gone := se.open == 0 // not if a stream came as the timer fired
			se.mu.Unlock()
			if gone {
				se.srv.log.Info("companion session closed: no stream open", "grace", grace)
				se.ss.Close()
			}
		})
	}
}

// modelClient is what the model sends the session: a selection_changed (SendLatest) means the
// context changed; at_mentioned (Send) has no counterpart in these CLIs.
type modelClient struct{ se *session }

func (c modelClient) Send([]byte)         {}
func (c modelClient) Agent() string       { return string(c.se.srv.cfg.Agent) }
func (c modelClient) TakesMentions() bool { return false }
func (c modelClient) SendLatest([]byte)   { c.se.changed() }

func (se *session) changed() {
	select {
	case se.poke <- struct{}{}:
	default:
	}
}

// streamOpened: the CLI's GET stream arrived. The first contextUpdate goes out only now (one
// sent before it never reaches the CLI), and from now on the model sends the session selections.
func (se *session) streamOpened() {
	se.once.Do(func() {
		close(se.opened)
		se.listen()
		se.changed()
	})
}

// listen makes the model send the session selections once it is both initialized and has its
// GET stream open, in whichever order they come (the CLIs: initialized first; the SDK's client:
// GET first).
func (se *session) listen() {
	select {
	case <-se.opened:
		se.srv.model().Listening(se.client) // a no-op before Ready
	default:
	}
}

// notify writes an ide/* notification on the session's GET stream. The stream may not be
// attached yet for a moment after its GET arrived: a failed write is tried again briefly.
func (se *session) notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	msg := &jsonrpc.Request{Method: method, Params: raw}
	for try := 0; ; try++ {
		err = se.conn.Write(se.ctx, msg)
		if err == nil || try == 50 || se.ctx.Err() != nil {
			break
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-se.ctx.Done():
		}
	}
	if err != nil {
		se.srv.log.Info("companion notification not sent", "method", method, "err", err)
	}
	return err
}

// tabName is the model's name for this agent's diff of path: one pending diff per file and agent.
func (se *session) tabName(path string) string {
	return "[" + se.srv.cfg.Agent.Title() + "] " + path
}

type openDiffArgs struct {
	FilePath   string `json:"filePath" jsonschema:"absolute path of the file to change"`
	NewContent string `json:"newContent" jsonschema:"the proposed full text of the file"`
}

type closeDiffArgs struct {
	FilePath             string `json:"filePath" jsonschema:"absolute path of the file whose diff to close"`
	SuppressNotification bool   `json:"suppressNotification,omitempty" jsonschema:"send no ide/diffRejected for it"`
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func errorResult(s string) *mcp.CallToolResult {
	r := textResult(s)
	r.IsError = true
	return r
}

func (s *Server) newMCPServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "claude-ide-bridge", Version: s.cfg.Version}, &mcp.ServerOptions{
		Logger: s.log,
		InitializedHandler: func(ctx context.Context, req *mcp.InitializedRequest) {
			if se := s.session(req.Session); se != nil {
				s.model().Ready(se.client)
				se.listen()
			}
		},
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "openDiff", Description: "Open a diff view to create or modify a file; the outcome comes as ide/diffAccepted or ide/diffRejected."},
		sessionTool(s, (*session).openDiff))
	mcp.AddTool(srv, &mcp.Tool{Name: "closeDiff", Description: "Close the diff view of a file; answers the file's text as JSON {\"content\": ...}."},
		sessionTool(s, (*session).closeDiff))
	return srv
}

// sessionTool answers a tool call with f of the session that made it.
func sessionTool[In any](s *Server, f func(*session, context.Context, In) *mcp.CallToolResult) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, a In) (*mcp.CallToolResult, any, error) {
		if se := s.session(req.Session); se != nil {
			return f(se, ctx, a), nil, nil
		}
		return errorResult("no such session"), nil, nil
	}
}

// openDiff answers at once ({"content":[]}, or isError so that the CLI asks in its terminal)
// and shows the proposal through the model; the user's decision goes out as a notification.
func (se *session) openDiff(_ context.Context, a openDiffArgs) *mcp.CallToolResult {
	if a.FilePath == "" || !filepath.IsAbs(a.FilePath) {
		return errorResult("openDiff: filePath must be an absolute path")
	}
	if !se.srv.model().Info().Caps.ShowDiff {
		return errorResult(se.srv.model().Info().Name + " does not show diffs")
	}
	path := filepath.Clean(a.FilePath)
	p := &proposal{text: a.NewContent}
	se.mu.Lock()
	se.proposals[path] = p
	se.mu.Unlock()
	args, _ := json.Marshal(ide.OpenDiffArgs{OldFilePath: path, NewFilePath: path, NewFileContents: ide.TextOf(a.NewContent), TabName: se.tabName(path)})
	go se.await(a.FilePath, path, p, args)
	return &mcp.CallToolResult{Content: []mcp.Content{}}
}

// await runs the model's openDiff (every rule Claude's proposals follow: tools.go's openDiff,
// the observer that records turns) until the user decides, and tells the CLI the outcome. An
// accepted diff is closed at once: the CLI writes the file itself with the text it is sent.
func (se *session) await(asked, path string, p *proposal, args json.RawMessage) {
	res, err := se.srv.model().CallTool(se.ctx, se.client, "openDiff", args)
	accepted, text := false, ""
	switch {
	case err != nil:
		se.srv.log.Warn("companion openDiff", "path", path, "err", err)
	case res.IsError:
		se.srv.log.Warn("companion openDiff", "path", path, "err", contentText(res.Content))
	case len(res.Content) == 2 && res.Content[0].Text == "FILE_SAVED":
		accepted, text = true, res.Content[1].File.String()
		if res.Content[1].File.IsZero() {
			text = res.Content[1].Text
		}
	}
	se.mu.Lock()
	if accepted {
		p.text = text // a closeDiff racing the accept answers what was accepted
	}
	suppressed := p.closing
	se.mu.Unlock()
	if accepted {
		se.srv.model().CloseTab(se.client, se.tabName(path))
	}
	se.mu.Lock()
	if se.proposals[path] == p {
		delete(se.proposals, path)
	}
	se.mu.Unlock()
	if suppressed || se.ctx.Err() != nil {
		return
	}
	if accepted {
		se.notify("ide/diffAccepted", map[string]string{"filePath": asked, "content": text})
	} else {
		se.notify("ide/diffRejected", map[string]string{"filePath": asked})
	}
}

// closeDiff closes the file's diff (the user answered in the CLI's terminal, or the CLI is
// leaving). Its result is one text block holding JSON {"content": text}: the CLI parses it and
// writes that text. The text is the one proposed (the editor protocol has no way to read a diff
// view's edited text), or the accepted one if the user accepted meanwhile; null without a diff.
func (se *session) closeDiff(ctx context.Context, a closeDiffArgs) *mcp.CallToolResult {
	path := filepath.Clean(a.FilePath)
	// The editor's text now (the user may have edited the proposal in the view), read before
	// the view closes.
	shown, pending := se.srv.model().DiffText(ctx, se.client, se.tabName(path))
	se.mu.Lock()
	p, ok := se.proposals[path]
	var content any
	if ok {
		delete(se.proposals, path)
		p.closing = a.SuppressNotification
		content = p.text
		if pending {
			content = shown
		}
	}
	se.mu.Unlock()
	if ok {
		se.srv.model().CloseTab(se.client, se.tabName(path))
	}
	b, _ := json.Marshal(map[string]any{"content": content})
	return textResult(string(b))
}

func contentText(c []ide.Content) string {
	var out string
	for _, b := range c {
		out += b.Text
	}
	return out
}
