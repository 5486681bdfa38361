package lsp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
	"go.lsp.dev/protocol"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
)

// Config configures a Manager.
type Config struct {
	// Root is the workspace folder: servers run in it and get it as rootUri and only workspace
	// folder. Required, absolute.
	Root string
	// Servers maps file extensions to server commands. An extension may appear once; several
	// extensions may share a command (one process serves them all).
	Servers []ServerConfig
	// Log receives the servers' stderr (one record a line, quoted by slog), their log messages
	// and their crashes. Nil discards.
	Log *slog.Logger
	// Wait bounds how long Diagnostics waits for one file's diagnostics after opening or
	// changing it (default 5 s); then it answers what the server has published.
	Wait time.Duration
	// WaitAll bounds the wait of Diagnostics for all files (default 1.5 s: the CLI gives that
	// call 2 s, claude-cli-facts.md).
	WaitAll time.Duration
	// StartTimeout bounds starting a server up to its answer to initialize (default 10 s).
	StartTimeout time.Duration
	// RequestTimeout bounds Request when ctx has no deadline (default 30 s).
	RequestTimeout time.Duration
	// Encoding is the unit of the characters of the ranges Diagnostics returns: ide.UTF16 (the
	// protocol's, the default) or ide.UTF8 (byte offsets).
	Encoding ide.Encoding
	// MaxFileSize bounds a file read to send it to a server (default 16 MiB).
	MaxFileSize int64
	// Trust is asked before a server is started: nil when Root is trusted, else why not
	// (internal/trust's Gate). A server reads the workspace's toolchain files and scripts, so
	// for an untrusted workspace none starts and Diagnostics and Request fail with
	// ErrUntrusted. Nil trusts every root: the bridge's wiring always sets it.
	Trust func() error
}

// ServerConfig is one language server command and the extensions (".go") it serves.
type ServerConfig struct {
	Extensions []string
	Command    []string
}

// Name is the command's base name, as logs and messages show it.
func (c ServerConfig) Name() string {
	if len(c.Command) == 0 {
		return ""
	}
	return filepath.Base(c.Command[0])
}

// FileDiagnostics are the diagnostics a server published for one file.
type FileDiagnostics struct {
	Path        string
	Diagnostics []protocol.Diagnostic
}

// Errors of Manager methods; test with errors.Is.
var (
	// ErrNoServer: no server is configured for the file's extension.
	ErrNoServer = errors.New("no language server configured")
	// ErrClosed: the Manager was closed.
	ErrClosed = errors.New("language servers are shut down")
	// ErrServerExited: the server exited (or closed its output) during the request. The next
	// request starts it again.
	ErrServerExited = errors.New("language server exited")
	// ErrUntrusted: the workspace is not trusted (or other users can write a folder its servers
	// search), so no server is started in it.
	ErrUntrusted = errors.New("language servers are off until the workspace is trusted")
	// ErrOutside: the file is not inside Root (symlinks resolved): the model chooses the paths
	// of getDiagnostics, and a server would be sent the file's text and quote it back.
	ErrOutside = errors.New("outside the workspace")
)

// Manager owns the language servers of one workspace. All methods are safe for concurrent use.
// A server starts on the first request for one of its files and is restarted on the next
// request after it crashed; Close shuts every server down.
type Manager struct {
	cfg     Config
	log     *slog.Logger
	byExt   map[string]*server
	servers []*server
	// realRoot is Root with its symlinks resolved, for inRoot.
	realRoot string

	mu     sync.Mutex
	closed bool

	untrustedLog sync.Once // the one log line saying servers are off
}

// trusted asks Config.Trust; a refusal is ErrUntrusted, logged once.
func (m *Manager) trusted() error {
	if m.cfg.Trust == nil {
		return nil
	}
	err := m.cfg.Trust()
	if err == nil {
		return nil
	}
	m.untrustedLog.Do(func() {
		m.log.Warn("language servers are off: the workspace is not trusted, or other users can write a folder they search; getDiagnostics answers no diagnostics until the reason is gone", "root", m.cfg.Root, "reason", err.Error())
	})
	return fmt.Errorf("%w (%v)", ErrUntrusted, err)
}

// New returns a Manager; no server is started until a request needs it. It fails on a bad
// Config (no root, an empty command, an extension given twice).
func New(cfg Config) (*Manager, error) {
	if cfg.Root == "" || !filepath.IsAbs(cfg.Root) {
		return nil, fmt.Errorf("lsp: the workspace root must be an absolute path, not %q", cfg.Root)
	}
	cfg.Root = filepath.Clean(cfg.Root)
	if cfg.Wait <= 0 {
		cfg.Wait = 5 * time.Second
	}
	if cfg.WaitAll <= 0 {
		cfg.WaitAll = 1500 * time.Millisecond
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 10 * time.Second
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	switch cfg.Encoding {
	case "":
		cfg.Encoding = ide.UTF16
	case ide.UTF16, ide.UTF8:
	default:
		return nil, fmt.Errorf("lsp: encoding must be %s or %s, not %q", ide.UTF8, ide.UTF16, cfg.Encoding)
	}
	if cfg.MaxFileSize <= 0 {
		cfg.MaxFileSize = 16 << 20
	}
	log := cmp.Or(cfg.Log, slog.New(slog.DiscardHandler))
	m := &Manager{cfg: cfg, log: log, byExt: map[string]*server{}, realRoot: cfg.Root}
	if r, err := filepath.EvalSymlinks(cfg.Root); err == nil {
		m.realRoot = r
	}
	byCmd := map[string]*server{}
	for _, sc := range cfg.Servers {
		if len(sc.Command) == 0 || sc.Command[0] == "" {
			return nil, fmt.Errorf("lsp: empty command for %v", sc.Extensions)
		}
		key := strings.Join(sc.Command, "\x00")
		s := byCmd[key]
		if s == nil {
			s = &server{m: m, name: filepath.Base(sc.Command[0]), argv: slices.Clone(sc.Command), start: make(chan struct{}, 1)}
			byCmd[key] = s
			m.servers = append(m.servers, s)
		}
		for _, ext := range sc.Extensions {
			ext = NormalizeExt(ext)
			if ext == "" {
				return nil, fmt.Errorf("lsp: empty extension for %s", sc.Name())
			}
			if _, dup := m.byExt[ext]; dup {
				return nil, fmt.Errorf("lsp: extension %s given twice", ext)
			}
			m.byExt[ext] = s
			s.exts = append(s.exts, ext)
		}
	}
	return m, nil
}

// NormalizeExt returns ".go" for "go", ".go" or ".GO".
func NormalizeExt(ext string) string {
	ext = strings.ToLower(strings.TrimSpace(ext))
	if ext == "" || ext == "." {
		return ""
	}
	if !strings.HasPrefix(ext, ".") {
		ext = "." + ext
	}
	return ext
}

// Servers describes the configured servers, one per command, in configuration order.
func (m *Manager) Servers() []ServerConfig {
	out := make([]ServerConfig, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, ServerConfig{Extensions: slices.Clone(s.exts), Command: slices.Clone(s.argv)})
	}
	return out
}

// Handles reports whether a server is configured for path's extension.
func (m *Manager) Handles(path string) bool { return m.serverFor(path) != nil }

// Root is the workspace root.
func (m *Manager) Root() string { return m.cfg.Root }

func (m *Manager) serverFor(path string) *server {
	return m.byExt[strings.ToLower(filepath.Ext(path))]
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// Diagnostics answers the diagnostics of one file (path absolute) or, for path "", of every
// file any running server has published diagnostics for.
//
// For one file it starts its server if needed, sends the file's current text on disk (didOpen
// the first time, didChange when it changed since), and waits up to Config.Wait for the server
// to publish diagnostics for that text; then it answers what the server has (possibly none).
// For all files it first sends the current text of every file it has open (files changed on
// disk since, such as a file the CLI just edited), waits up to Config.WaitAll for those, and
// answers every file with at least one diagnostic; it starts no server.
//
// Errors: ErrNoServer (wrapped, naming the extension), a file that cannot be read, a server
// that cannot start or exits meanwhile (ErrServerExited), ctx's error.
func (m *Manager) Diagnostics(ctx context.Context, path string) ([]FileDiagnostics, error) {
	if m.isClosed() {
		return nil, ErrClosed
	}
	if path == "" {
		return m.allDiagnostics(ctx)
	}
	p, st, err := m.open(ctx, path)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, m.cfg.Wait)
	defer cancel()
	if err := p.waitDiagnostics(wctx, []syncState{st}); err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	} else if errors.Is(err, ErrServerExited) {
		return nil, err
	}
	fd := FileDiagnostics{Path: st.path, Diagnostics: p.published(st.path)}
	m.convert(p, &fd)
	return []FileDiagnostics{fd}, nil
}

// inRoot refuses a path that is not inside Root once its symlinks are resolved (userfile.Inside:
// for a missing file, those of its longest existing parent; a dangling symlink is refused).
func (m *Manager) inRoot(path string) error {
	if _, ok := userfile.Inside(path, []string{m.realRoot}); !ok {
		return fmt.Errorf("%s: %w %s", path, ErrOutside, m.cfg.Root)
	}
	return nil
}

// noServer is ErrNoServer for path, naming the flag that would add a server; the model tools
// give its text as their reason (ToolSource).
func noServer(path string) error {
	ext := filepath.Ext(path)
	if ext == "" {
		return fmt.Errorf("%w for %s (it has no extension)", ErrNoServer, path)
	}
	return fmt.Errorf("%w for %s files (serve --lsp %s=COMMAND)", ErrNoServer, ext, ext)
}

func (m *Manager) allDiagnostics(ctx context.Context) ([]FileDiagnostics, error) {
	procs := m.running()
	wctx, cancel := context.WithTimeout(ctx, m.cfg.WaitAll)
	defer cancel()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() {
			var states []syncState
			for _, path := range p.openPaths() {
				st, err := p.sync(wctx, path)
				if err != nil {
					continue // gone or unreadable: sync closed it in the server
				}
				states = append(states, st)
			}
			p.waitDiagnostics(wctx, states)
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []FileDiagnostics
	for _, p := range procs {
		for _, fd := range p.allPublished() {
			m.convert(p, &fd)
			out = append(out, fd)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// running returns the live server processes.
func (m *Manager) running() []*process {
	var out []*process
	for _, s := range m.servers {
		if p := s.current(); p != nil && !p.dead() {
			out = append(out, p)
		}
	}
	return out
}

// open starts the server for path (absolute) if needed and sends it the file's current text on
// disk (didOpen, or didChange when it changed). Errors as Diagnostics'.
func (m *Manager) open(ctx context.Context, path string) (*process, syncState, error) {
	if m.isClosed() {
		return nil, syncState{}, ErrClosed
	}
	path = filepath.Clean(path)
	s := m.serverFor(path)
	if s == nil {
		return nil, syncState{}, noServer(path)
	}
	if err := m.inRoot(path); err != nil {
		return nil, syncState{}, err
	}
	p, err := s.ensure(ctx)
	if err != nil {
		return nil, syncState{}, err
	}
	st, err := p.sync(ctx, path)
	return p, st, err
}

// Request opens path (open), then sends method with params to its server and decodes the
// answer into result (if non-nil). Positions in params and result are UTF-16 code units.
// Without a deadline in ctx it is bounded by Config.RequestTimeout. A server's error answer is
// returned as *jsonrpc.Error; a server that exits meanwhile gives ErrServerExited.
func (m *Manager) Request(ctx context.Context, path, method string, params, result any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, m.cfg.RequestTimeout)
		defer cancel()
	}
	p, _, err := m.open(ctx, path)
	if err != nil {
		return err
	}
	return p.call(ctx, method, params, result)
}

// Close shuts every running server down (shutdown, exit, then a kill after a grace period) and
// waits for them to end. Later requests fail with ErrClosed. Idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(s.stop)
	}
	wg.Wait()
	return nil
}

// convert turns fd's ranges into Config.Encoding.
func (m *Manager) convert(p *process, fd *FileDiagnostics) {
	if m.cfg.Encoding == ide.UTF16 || len(fd.Diagnostics) == 0 {
		return
	}
	text, ok := p.text(fd.Path)
	if !ok {
		held := membudget.Default.NewGrant()
		defer held.Release()
		var err error
		if text, err = userfile.ReadText(held, fd.Path, m.cfg.MaxFileSize); err != nil {
			return // left in UTF-16: still the right lines
		}
	}
	lines := splitLines(text)
	for i := range fd.Diagnostics {
		r := &fd.Diagnostics[i].Range
		r.Start.Character = uint32(ide.ByteOffset(lineAt(lines, int(r.Start.Line)), int(r.Start.Character), ide.UTF16))
		r.End.Character = uint32(ide.ByteOffset(lineAt(lines, int(r.End.Line)), int(r.End.Character), ide.UTF16))
	}
}

// splitLines splits text at \n, \r\n and \r, the protocol's line ends, without them.
func splitLines(text string) []string {
	var lines []string
	for {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			return append(lines, text)
		}
		lines = append(lines, text[:i])
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		text = text[i+1:]
	}
}

func lineAt(lines []string, i int) string {
	if i < 0 || i >= len(lines) {
		return ""
	}
	return lines[i]
}
