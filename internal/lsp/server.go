package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
)

// server is one configured command; it has at most one running process at a time.
type server struct {
	m    *Manager
	name string
	argv []string
	exts []string

	start   chan struct{} // 1-buffered: one start (or stop) at a time
	refused sync.Once     // the one log line saying its program is unsafe to run

	mu   sync.Mutex
	proc *process // the latest process, possibly dead
}

func (s *server) current() *process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

// ensure returns the running, initialized process, starting one if there is none or the last
// one died.
func (s *server) ensure(ctx context.Context) (*process, error) {
	if p := s.current(); p != nil && !p.dead() {
		return p, nil
	}
	select {
	case s.start <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.start }()
	if p := s.current(); p != nil && !p.dead() {
		return p, nil // started by another caller meanwhile
	}
	if s.m.isClosed() {
		return nil, ErrClosed
	}
	if err := s.m.trusted(); err != nil {
		return nil, err
	}
	if old := s.current(); old != nil {
		s.m.log.Warn("language server ended; starting it again", "server", s.name, "error", old.exitError())
	}
	p, err := s.launch(ctx)
	if errors.Is(err, trust.ErrUnsafeProgram) {
		s.refused.Do(func() { s.m.log.Warn("language server not started", "server", s.name, "reason", err.Error()) })
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	return p, nil
}

// launch starts the command and initializes it, within Config.StartTimeout and ctx.
func (s *server) launch(ctx context.Context) (*process, error) {
	ctx, cancel := context.WithTimeout(ctx, s.m.cfg.StartTimeout)
	defer cancel()
	p, err := startProcess(s)
	if err != nil {
		return nil, fmt.Errorf("starting language server %s: %w", s.name, err)
	}
	if err := p.initialize(ctx); err != nil {
		p.kill()
		<-p.done
		switch {
		case p.dead() && !errors.Is(err, context.DeadlineExceeded):
			err = fmt.Errorf("%w before answering initialize (%v)", ErrServerExited, p.exitError())
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
			err = fmt.Errorf("no answer to initialize within %v", s.m.cfg.StartTimeout)
		}
		return nil, fmt.Errorf("starting language server %s: %w", s.name, err)
	}
	s.m.log.Info("language server started", "server", s.name, "pid", p.cmd.Process.Pid, "root", s.m.cfg.Root)
	return p, nil
}

// stop shuts the process down: shutdown and exit (2 s each at most), then kill.
func (s *server) stop() {
	s.start <- struct{}{} // no start races the stop; later ones see the Manager closed
	defer func() { <-s.start }()
	p := s.current()
	if p == nil || p.dead() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	err := p.conn.Call(ctx, protocol.MethodShutdown, nil, nil)
	cancel()
	if err == nil {
		ctx, cancel = context.WithTimeout(context.Background(), time.Second)
		p.conn.Notify(ctx, protocol.MethodExit, nil)
		cancel()
		select {
		case <-p.done:
			return
		case <-time.After(2 * time.Second):
		}
	}
	p.kill()
	<-p.done
}

// process is one run of a server.
type process struct {
	s    *server
	cmd  *exec.Cmd
	conn *jsonrpc.Conn
	// done is closed when the process has exited and its output readers have ended.
	done chan struct{}
	// gone is closed as soon as the process exits or its connection ends.
	gone     chan struct{}
	goneOnce sync.Once
	exitErr  error // set before done is closed

	syncing chan struct{} // 1-buffered: one document sync at a time

	mu      sync.Mutex
	docs    map[string]*document // open documents by path
	diags   map[string]*publication
	dropped int           // publications not kept (MaxDiagnosticFiles, the memory budget)
	changed chan struct{} // closed and replaced at each publication
}

// document is a file open in the server.
type document struct {
	uri     protocol.DocumentURI
	version int32
	text    string
	held    *membudget.Grant // text's share of the memory budget, while the server has it open
	// sent is the file's publication count when its current text was sent: diagnostics
	// published later are for this text (or a newer one).
	sent uint64
}

// publication is the latest diagnostics published for a file.
type publication struct {
	diags   []protocol.Diagnostic
	version int32 // 0 when the server did not say
	count   uint64
	held    *membudget.Grant // its share of the memory budget (the size of its message)
}

// MaxDiagnosticFiles bounds the files a server's diagnostics are kept for, beside its open
// documents: a server that publishes for 300,000 files (a hostile or runaway one) has the first
// 10,000 kept and the rest dropped, with one log line (issue 25 item 5). Diagnostics are also
// counted against the one memory budget (membudget.Default).
const MaxDiagnosticFiles = 10000

func startProcess(s *server) (*process, error) {
	// The program is looked up here, each start, by trust's rules (never from the workspace or
	// a folder another user can write), and run by its resolved path with argv[0] as given:
	// rustup's proxies read their name from it.
	workspace := []string{s.m.cfg.Root}
	prog, err := trust.Executable(s.argv[0], "", workspace)
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: prog, Args: append([]string(nil), s.argv...), Dir: s.m.cfg.Root}
	cmd.Env = trust.Env(workspace) // what a server runs by name is not the workspace's either
	setProcessGroup(cmd)
	// Pipes of our own rather than cmd's: Wait then returns when the server exits, even if a
	// helper it started still holds an output open.
	var ends [6]*os.File // stdin's, stdout's and stderr's read and write ends
	for i := 0; i < len(ends); i += 2 {
		if ends[i], ends[i+1], err = os.Pipe(); err != nil {
			closeFiles(ends[:i]...)
			return nil, err
		}
	}
	inR, inW, outR, outW, errR, errW := ends[0], ends[1], ends[2], ends[3], ends[4], ends[5]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	closeFiles(inR, outW, errW) // the server's ends
	if err != nil {
		closeFiles(inW, outR, errR)
		return nil, err
	}
	p := &process{
		s: s, cmd: cmd, done: make(chan struct{}), gone: make(chan struct{}), syncing: make(chan struct{}, 1),
		docs: map[string]*document{}, diags: map[string]*publication{}, changed: make(chan struct{}),
	}
	p.conn = jsonrpc.NewConn(jsonrpc.NewHeaderStream(outR, inW), p.handle)
	p.conn.OnError = func(err error) { s.m.log.Debug("language server message", "server", s.name, "error", err) }
	connDone := make(chan struct{})
	go func() {
		defer close(connDone)
		p.conn.Run(context.Background())
		p.markGone()
	}()
	errDone := make(chan struct{})
	go func() {
		defer close(errDone)
		p.logStderr(errR)
	}()
	go func() {
		werr := cmd.Wait()
		p.mu.Lock()
		p.exitErr = werr
		p.mu.Unlock()
		p.markGone()
		// The output left in the pipes is read to its end, unless a helper of the server
		// keeps them open: then they are closed under it.
		drain := func(done <-chan struct{}, closes ...func() error) {
			select {
			case <-done:
			case <-time.After(time.Second):
			}
			for _, c := range closes {
				c()
			}
			<-done
		}
		drain(connDone, p.conn.Close, outR.Close)
		drain(errDone, errR.Close)
		close(p.done)
	}()
	return p, nil
}

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

func (p *process) markGone() {
	p.goneOnce.Do(func() {
		close(p.gone)
		p.mu.Lock()
		for _, pub := range p.diags { // the process is gone: what it published no longer counts
			pub.held.Release()
		}
		for _, doc := range p.docs {
			doc.held.Release()
		}
		p.mu.Unlock()
	})
}

// dead reports whether the process exited or its connection ended.
func (p *process) dead() bool {
	select {
	case <-p.gone:
		return true
	default:
		return false
	}
}

func (p *process) exitError() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exitErr == nil {
		return errors.New("output closed")
	}
	return p.exitErr
}

// exited is the error of a request the process ended under.
func (p *process) exited() error {
	return fmt.Errorf("%s: %w (%v)", p.s.name, ErrServerExited, p.exitError())
}

func (p *process) kill() {
	killProcess(p.cmd)
	p.conn.Close()
}

// logStderr logs the server's stderr a line at a time (slog quotes what is not plain text, so
// no escape sequence of the server reaches a terminal). Long lines are cut.
func (p *process) logStderr(r io.Reader) {
	br := bufio.NewReaderSize(r, 4096)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			more := errors.Is(err, bufio.ErrBufferFull)
			p.s.m.log.Info("language server stderr", "server", p.s.name, "line", string(bytes.TrimRight(line, "\r\n")), "cut", more)
			for errors.Is(err, bufio.ErrBufferFull) { // skip the rest of a long line
				_, err = br.ReadSlice('\n')
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// folders is the one workspace folder servers are given: Root.
func (p *process) folders() []protocol.WorkspaceFolder {
	return []protocol.WorkspaceFolder{{URI: string(uri.File(p.s.m.cfg.Root)), Name: filepath.Base(p.s.m.cfg.Root)}}
}

func (p *process) initialize(ctx context.Context) error {
	params := protocol.InitializeParams{
		ProcessID:  int32(os.Getpid()),
		ClientInfo: &protocol.ClientInfo{Name: "claude-ide-bridge"},
		//lint:ignore SA1019 servers that predate workspace folders still read rootUri/rootPath
		RootURI: uri.File(p.s.m.cfg.Root),
		//lint:ignore SA1019 as above
		RootPath: p.s.m.cfg.Root,
		Capabilities: protocol.ClientCapabilities{
			Workspace: &protocol.WorkspaceClientCapabilities{
				WorkspaceFolders: true,
				Configuration:    true,
			},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization: &protocol.TextDocumentSyncClientCapabilities{},
				PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{
					RelatedInformation: true,
					VersionSupport:     true,
				},
				Definition:     &protocol.DefinitionTextDocumentClientCapabilities{LinkSupport: false},
				References:     &protocol.ReferencesTextDocumentClientCapabilities{},
				Hover:          &protocol.HoverTextDocumentClientCapabilities{ContentFormat: []protocol.MarkupKind{protocol.PlainText, protocol.Markdown}},
				DocumentSymbol: &protocol.DocumentSymbolClientCapabilities{HierarchicalDocumentSymbolSupport: true},
				Implementation: &protocol.ImplementationTextDocumentClientCapabilities{},
				CallHierarchy:  &protocol.CallHierarchyClientCapabilities{},
				Rename:         &protocol.RenameClientCapabilities{PrepareSupport: true},
			},
			Window: &protocol.WindowClientCapabilities{WorkDoneProgress: false},
		},
		WorkspaceFolders: p.folders(),
	}
	// Capabilities are kept raw: servers differ in which of the union types they answer, and
	// nothing here needs them decoded.
	var result struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if err := p.call(ctx, protocol.MethodInitialize, params, &result); err != nil {
		return err
	}
	return p.notify(ctx, protocol.MethodInitialized, struct{}{})
}

// call sends a request; it fails with ErrServerExited when the process ends meanwhile.
func (p *process) call(ctx context.Context, method string, params, result any) error {
	err := p.conn.Call(ctx, method, params, result)
	if errors.Is(err, jsonrpc.ErrClosed) || (err != nil && p.dead() && ctx.Err() == nil) {
		return p.exited()
	}
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%s did not answer %s: %w", p.s.name, method, ctx.Err())
	}
	return err
}

// notify sends a notification. A server that does not read it within ctx is killed: its input
// is full, and every later message would wait behind this one.
func (p *process) notify(ctx context.Context, method string, params any) error {
	err := p.conn.Notify(ctx, method, params)
	if err == nil {
		return nil
	}
	if p.dead() || errors.Is(err, jsonrpc.ErrClosed) {
		return p.exited()
	}
	if ctx.Err() != nil {
		p.s.m.log.Warn("language server does not read its input; stopping it", "server", p.s.name)
		p.kill()
	}
	return fmt.Errorf("sending %s to %s: %w", method, p.s.name, err)
}

// handle answers the server's requests and takes its notifications.
func (p *process) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	switch req.Method {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var params protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(req.Params, &params); err != nil {
			return nil, err
		}
		p.publish(params, int64(len(req.Params)))
		return nil, nil
	case protocol.MethodWindowLogMessage, protocol.MethodWindowShowMessage:
		var params protocol.LogMessageParams
		if json.Unmarshal(req.Params, &params) == nil {
			p.s.m.log.Debug("language server message", "server", p.s.name, "type", params.Type, "message", params.Message)
		}
		return nil, nil
	case protocol.MethodWorkspaceConfiguration:
		// No settings of our own: null for each item asked, so servers use their defaults.
		var params struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(req.Params, &params); err != nil {
			return nil, err
		}
		return make([]any, len(params.Items)), nil
	case protocol.MethodWorkspaceWorkspaceFolders:
		return p.folders(), nil
	case protocol.MethodWorkDoneProgressCreate, protocol.MethodClientRegisterCapability,
		protocol.MethodClientUnregisterCapability, protocol.MethodWindowShowMessageRequest:
		return json.RawMessage("null"), nil
	}
	if req.IsCall() {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
	}
	return nil, nil // $/progress, telemetry/event, ...: not needed
}

// publish keeps the diagnostics of one publication (size: its message's bytes). Always for an
// open document (the bridge waits on it); for another file only within MaxDiagnosticFiles and
// the memory budget, else it is dropped with a log line (the first, then every 10,000th).
func (p *process) publish(params protocol.PublishDiagnosticsParams, size int64) {
	path := filepath.Clean(uri.URI(params.URI).Filename())
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead() {
		return
	}
	pub := p.diags[path]
	if len(params.Diagnostics) == 0 {
		size = 0
	}
	var (
		held *membudget.Grant
		err  error
	)
	switch {
	case p.docs[path] != nil:
		held = membudget.Default.Force(size)
	case pub == nil && len(p.diags) >= MaxDiagnosticFiles:
		err = fmt.Errorf("diagnostics are kept for at most %d files", MaxDiagnosticFiles)
	default:
		held, err = membudget.Default.Take(size, "diagnostics for "+filepath.Base(path))
	}
	if err != nil {
		p.dropped++
		if p.dropped == 1 || p.dropped%10000 == 0 {
			p.s.m.log.Warn("language server diagnostics dropped", "server", p.s.name, "dropped", p.dropped, "reason", err.Error())
		}
		return
	}
	if pub == nil {
		pub = &publication{}
		p.diags[path] = pub
	}
	pub.held.Release()
	pub.held = held
	pub.diags = params.Diagnostics
	pub.version = int32(params.Version)
	pub.count++
	close(p.changed)
	p.changed = make(chan struct{})
}
