// Package bridge wires one IDE server together: a loopback listener, a token and lock file
// (discovery), the WebSocket handler (transport), one MCP session per client (mcp) and the state
// of the IDE (ide) in front of an Editor.
package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/claudestate"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/mcp"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/remote"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
)

// Config describes the IDE to serve.
type Config struct {
	Editor  ide.Editor
	Info    ide.EditorInfo // Info.Name is the lock's ideName
	Folders []string       // workspace folders; resolved to absolute, symlink-free paths
	PID     int            // the lock's pid (0: this process)
	Port    int            // 0: a random free port in 10000-65535
	LockDir string         // "": discovery.Dir()
	Events  ide.Events     // told about clients; FoldersChanged is wrapped to rewrite the lock
	Trace   io.Writer      // optional frame trace
	// Keepalive is the WebSocket ping interval (default 30s).
	Keepalive time.Duration
	// MaxClients bounds concurrent Claude connections (default 64); over it, 503.
	MaxClients int
	// EditorCode is the editor's language servers for the model's code tools (/mcp): the
	// editor protocol's lspRequest. Nil: the editor offers none.
	EditorCode modeltools.Source
	// Code answers the code tools when the editor has no language server for a file: the
	// bridge's own language-server clients (lsp.Manager.ToolSource). Optional.
	Code modeltools.Source
	// Review configures the record of each turn's changes (Folders is the bridge's); nil:
	// none is kept.
	Review *review.Config
	// StateChanged is told when a Claude session's state changes (its hooks, claudestate).
	StateChanged func(claudestate.Session)
	// Asker is the editor that answers the CLI's permission prompts now (internal/permission);
	// nil, or returning nil: none, Claude's terminal asks.
	Asker func() permission.Asker
	Log   *slog.Logger
	// Version is the bridge's (main.version), in the serverInfo of both MCP servers.
	Version string
}

// Bridge is a running IDE server. Close it to remove its lock and disconnect its clients.
type Bridge struct {
	Model *ide.Model
	// Review is the record of turns (nil without Config.Review); State the sessions' states.
	Review *review.Tracker
	State  *claudestate.Tracker
	// Permissions holds the permission prompts the editor is asked about.
	Permissions *permission.Broker

	port     int
	token    string
	lockPath string
	lockDir  string
	lock     discovery.Lock
	ln       net.Listener
	srv      *http.Server
	handler  *transport.Handler
	mcpToken string
	mcpPath  string // the MCP config file next to the lock
	hookPath string // the --settings file with the hooks, next to the lock
	log      *slog.Logger

	lockMu    sync.Mutex // serialises lock rewrites with removal
	closeOnce sync.Once
	served    chan struct{}
}

// Start listens, writes the lock file and serves until Close.
func Start(cfg Config) (*Bridge, error) {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Info.Name == "" {
		return nil, errors.New("bridge: the IDE needs a name")
	}
	folders := cfg.Folders
	if len(folders) == 0 {
		folders = []string{"."} // the current directory, resolved below
	}
	folders, err := discovery.ResolveFolders(folders)
	if err != nil {
		return nil, err
	}
	token, err := discovery.NewToken()
	if err != nil {
		return nil, fmt.Errorf("bridge: no auth token, refusing to start: %w", err)
	}
	dir := cfg.LockDir
	if dir == "" {
		if dir, err = discovery.Dir(); err != nil {
			return nil, err
		}
	}
	ln, err := discovery.Listen(cfg.Port)
	if err != nil {
		return nil, err
	}
	pid := cfg.PID
	if pid == 0 {
		pid = os.Getpid()
	}
	b := &Bridge{
		port: ln.Addr().(*net.TCPAddr).Port, token: token, lockDir: dir, ln: ln, log: log,
		lock:   discovery.Lock{PID: pid, WorkspaceFolders: folders, IDEName: cfg.Info.Name, Transport: "ws", AuthToken: token, Bridge: "claude-ide-bridge"},
		served: make(chan struct{}),
	}
	events := cfg.Events
	userFolders := events.FoldersChanged
	events.FoldersChanged = func(f []string) {
		b.rewriteLock(f)
		if userFolders != nil {
			userFolders(f)
		}
	}
	userRejected := events.DiffRejected
	events.DiffRejected = func(id ide.ClientID, tab string) {
		if b.State != nil {
			b.State.DiffRejected()
		}
		if userRejected != nil {
			userRejected(id, tab)
		}
	}
	b.Model = ide.New(cfg.Editor, cfg.Info, folders, events, log)
	b.handler = transport.NewHandler(transport.Config{
		Token: token, Port: b.port, Trace: cfg.Trace, Log: log, Keepalive: cfg.Keepalive, MaxClients: cfg.MaxClients,
		Serve: func(ctx context.Context, c *transport.Client) {
			mcp.Serve(ctx, c, b.Model, cfg.Version, log)
		},
	})
	if b.mcpToken, err = discovery.NewToken(); err != nil {
		ln.Close()
		return nil, fmt.Errorf("bridge: no MCP token, refusing to start: %w", err)
	}
	// The route's gate (below) and the handler's own both check the MCP token: the handler
	// never serves without one, wherever it is mounted.
	mcpCheck := func(r *http.Request) (int, string) { return transport.CheckBearer(r, b.port, b.mcpToken) }
	code := modeltools.NewHandler(modeltools.Options{
		Source:   modeltools.First(editorSource(cfg.EditorCode, cfg.Info), ownSource(cfg.Code)),
		Folders:  b.Model.Folders,
		Excluded: b.Model.Excluded, // the same exclude rule as every IDE channel
		Version:  cfg.Version,
	}, mcpCheck, log)
	control := remote.Handler(b.Model)
	if err := b.startReview(cfg); err != nil {
		ln.Close()
		return nil, err
	}
	b.startPermissions(cfg)
	// The shell's mention and select, and the model's code tools at /mcp, share the listener,
	// each route with its own gate (transport.Mux, docs/security.md); neither token opens the
	// other's routes.
	b.srv = transport.Server(transport.Mux(b.handler,
		transport.Route{Name: "mcp", Match: func(r *http.Request) bool { return r.URL.Path == "/mcp" }, Check: mcpCheck, Serve: code},
		transport.Route{Name: "shell", Match: remote.Is, Check: b.handler.Authorize, Serve: control},
		transport.Route{Name: "review", Match: func(r *http.Request) bool { return r.URL.Path == remote.PathReview }, Check: b.handler.Authorize, Serve: b.reviewHandler()},
		transport.Route{Name: "hook", Match: func(r *http.Request) bool { return r.URL.Path == remote.PathHook }, Check: b.handler.Authorize, Serve: claudestate.Handler(b.State)},
		transport.Route{Name: "permission", Match: func(r *http.Request) bool { return r.URL.Path == remote.PathPermission }, Check: b.handler.Authorize, Serve: b.permissionHandler()}))
	b.srv.ReadHeaderTimeout = 5 * time.Second // a client that never finishes its handshake is dropped
	b.srv.IdleTimeout = 5 * time.Second       // and so is an idle keep-alive connection
	b.srv.MaxHeaderBytes = 16 << 10
	b.srv.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelDebug)
	// A bridge killed by SIGKILL could not remove its lock: clear our own stale ones (never a
	// live one, never another IDE's) so the CLI does not find a dead entry.
	if removed, err := discovery.SweepOwn([]string{dir}); len(removed) > 0 || err != nil {
		log.Info("removed stale lock files", "paths", removed, "err", err)
	}
	if b.mcpPath, err = discovery.WriteMCPConfig(dir, b.port, discovery.NewMCPConfig(b.port, b.mcpToken)); err != nil {
		ln.Close()
		return nil, err
	}
	if b.hookPath, err = writeHookSettings(dir, b.port); err != nil {
		os.Remove(b.mcpPath)
		ln.Close()
		return nil, err
	}
	if b.lockPath, err = discovery.WriteLock(dir, b.port, b.lock); err != nil {
		os.Remove(b.mcpPath)
		os.Remove(b.hookPath)
		ln.Close()
		return nil, err
	}
	go func() {
		defer close(b.served)
		b.srv.Serve(ln)
	}()
	log.Info("listening", "port", b.port, "lock", b.lockPath, "ide", cfg.Info.Name, "folders", folders)
	return b, nil
}

// Port is the WebSocket port.
func (b *Bridge) Port() int { return b.port }

// Token is the auth token (also in the lock file).
func (b *Bridge) Token() string { return b.token }

// MCPToken is the bearer token of the model's MCP server at /mcp (also in MCPConfigPath).
func (b *Bridge) MCPToken() string { return b.mcpToken }

// MCPConfigPath is the file holding the CLI's --mcp-config for /mcp (0600, next to the lock).
func (b *Bridge) MCPConfigPath() string { return b.mcpPath }

// HookSettingsPath is the --settings file that gives a claude the bridge's hooks (its state
// for status lines, the end of each turn); 0600 next to the lock.
func (b *Bridge) HookSettingsPath() string { return b.hookPath }

// LockPath is the lock file's path.
func (b *Bridge) LockPath() string { return b.lockPath }

// Env is what the terminal running claude needs.
func (b *Bridge) Env() map[string]string { return discovery.Env(b.port) }

func (b *Bridge) rewriteLock(folders []string) {
	resolved, err := discovery.ResolveFolders(folders)
	if err != nil {
		b.log.Warn("workspace folders", "err", err)
		return
	}
	b.lockMu.Lock()
	defer b.lockMu.Unlock()
	if b.lockPath == "" {
		return // closed
	}
	b.lock.WorkspaceFolders = resolved
	if _, err := discovery.WriteLock(b.lockDir, b.port, b.lock); err != nil {
		b.log.Warn("rewriting lock", "err", err)
	}
}

// SetPID rewrites the lock with pid as its process (0: this one). A bridge that outlives its
// editor names itself: the CLI deletes a lock whose pid is dead.
func (b *Bridge) SetPID(pid int) {
	if pid == 0 {
		pid = os.Getpid()
	}
	b.lockMu.Lock()
	defer b.lockMu.Unlock()
	if b.lockPath == "" || b.lock.PID == pid {
		return // closed, or nothing to change
	}
	b.lock.PID = pid
	if _, err := discovery.WriteLock(b.lockDir, b.port, b.lock); err != nil {
		b.log.Warn("rewriting lock", "err", err)
	}
}

// LockDir is the directory of the lock file.
func (b *Bridge) LockDir() string { return b.lockDir }

// Close removes the lock, settles pending diffs (never as accepts), closes clients with 1001
// and stops the server. It is safe to call more than once.
func (b *Bridge) Close() error {
	var err error
	b.closeOnce.Do(func() {
		b.lockMu.Lock()
		err = discovery.RemoveLock(b.lockPath)
		b.lockPath = ""
		if rerr := discovery.RemoveLock(b.mcpPath); err == nil {
			err = rerr
		}
		if rerr := discovery.RemoveLock(b.hookPath); err == nil {
			err = rerr
		}
		b.lockMu.Unlock()
		b.Model.Close()
		b.srv.SetKeepAlivesEnabled(false)
		b.ln.Close()
		b.handler.CloseAll()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		b.srv.Shutdown(ctx)
		<-b.served
		if b.Review != nil {
			b.Review.Close()
		}
	})
	return err
}

// editorSource is the editor's language servers, or a source that says it offers none.
func editorSource(s modeltools.Source, info ide.EditorInfo) modeltools.Source {
	if s != nil {
		return s
	}
	return noServer(info.Name, "does not share its language servers with the bridge")
}

// ownSource is the bridge's own language servers, or a source that says there are none.
func ownSource(s modeltools.Source) modeltools.Source {
	if s != nil {
		return s
	}
	return noServer("the bridge", "has no language servers of its own here")
}

func noServer(source, reason string) modeltools.Source {
	return modeltools.SourceFunc(func(context.Context, string, string, any, any) (modeltools.Answer, error) {
		return modeltools.Answer{}, &modeltools.NoServerError{Source: source, Reason: reason}
	})
}
