package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/attach"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/claudestate"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/editors/slot"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/editors/stdio"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
)

// This file is how a bridge started by an editor (serve --stdio) outlives it, and how the next
// editor for that workspace attaches (docs/architecture.md, "How a bridge starts, attaches and
// ends"):
//
//   - serve --stdio reads the editor's initialize first. When a bridge that outlived its editor
//     listens for that workspace (attach.SocketPath), this process only relays its stdio to
//     that socket (relay): every editor plugin attaches without code of its own.
//   - Otherwise it assembles its own bridge around a slot.Slot. When the editor goes (stdin
//     EOF, its pid dies) while a Claude is connected, the bridge stays: the lock names this
//     process, the socket listens, and the next editor's session runs on it (outlive). It ends
//     when the grace (--outlive) has passed with no Claude connected, on a signal, or when an
//     editor asks (shutdown).

// relayFirstAnswer bounds the wait for the bridge's first bytes: a bridge that accepted the
// connection answers initialize within milliseconds. No answer: this process starts its own.
const relayFirstAnswer = 3 * time.Second

// firstMessage is the editor's first message, read before deciding whether to attach.
type firstMessage struct {
	raw     []byte   // every byte read from stdin so far
	folders []string // initialize's workspaceFolders (nil: not an initialize, or none given)
	isInit  bool
}

// readFirst reads the editor's first message (any framing). A bad one is left to the editor
// protocol's own reader, which reports it as always: its bytes are in raw.
func readFirst(ctx context.Context, stdin io.Reader) (firstMessage, error) {
	type result struct {
		fm  firstMessage
		err error
	}
	done := make(chan result, 1)
	go func() { // a read of stdin cannot be cancelled: the process exits on ctx's end anyway
		var rec bytes.Buffer
		data, err := jsonrpc.NewDetectStream(io.TeeReader(stdin, &rec), nopCloser{io.Discard}).Read(ctx)
		fm := firstMessage{raw: rec.Bytes()}
		if err == nil {
			var m struct {
				Method string `json:"method"`
				Params struct {
					WorkspaceFolders []string `json:"workspaceFolders"`
				} `json:"params"`
			}
			if json.Unmarshal(data, &m) == nil && m.Method == "initialize" {
				fm.isInit, fm.folders = true, m.Params.WorkspaceFolders
			}
		}
		if len(fm.raw) > 0 {
			err = nil // a bad first message is the editor protocol's to report, from raw
		}
		done <- result{fm, err}
	}()
	select {
	case r := <-done:
		return r.fm, r.err
	case <-ctx.Done():
		return firstMessage{}, ctx.Err()
	}
}

// socketFor is the attach socket of the workspace an initialize names ("" when it cannot
// tell: the folders do not resolve, no lock dir).
func socketFor(folders []string) string {
	folder := "" // none: the current directory
	if len(folders) > 0 {
		folder = folders[0]
	}
	real, err := discovery.Resolve(folder)
	if err != nil {
		return ""
	}
	dir, err := discovery.Dir()
	if err != nil {
		return ""
	}
	return attach.SocketPath(dir, real)
}

// relay connects the editor's stdio to the bridge listening on sock: first the bytes already
// read, then both ways until either side ends. attached is false when no bridge took the
// editor (none listens, or it never answered): nothing reached the editor, and the caller
// starts a bridge of its own.
func relay(ctx context.Context, sock string, first []byte, stdin io.Reader, stdout io.Writer, log *slog.Logger) (attached bool, err error) {
	dctx, cancel := context.WithTimeout(ctx, time.Second)
	c, err := attach.Dial(dctx, sock)
	cancel()
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			log.Info("not attaching", "socket", sock, "err", err)
			// A killed bridge's socket: nothing listens, it goes (issue 39 item 10).
			if removed, _ := attach.RemoveStale(sock); removed {
				log.Info("removed a dead bridge's attach socket", "socket", sock)
			}
		}
		return false, nil
	}
	defer c.Close()
	if _, err := c.Write(first); err != nil {
		return false, nil
	}
	// The first answer decides: a bridge whose listener closed under us answers nothing.
	buf := make([]byte, 64<<10)
	c.SetReadDeadline(time.Now().Add(relayFirstAnswer))
	n, err := c.Read(buf)
	if n == 0 {
		log.Info("not attaching: the bridge did not answer", "socket", sock, "err", err)
		return false, nil
	}
	c.SetReadDeadline(time.Time{})
	log.Info("attached to a running bridge", "socket", sock)
	if _, err := stdout.Write(buf[:n]); err != nil {
		return true, nil
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	go func() {
		_, err := io.Copy(c, stdin) // the editor's messages
		log.Debug("relay: the editor's side ended", "err", err)
		c.(*net.UnixConn).CloseWrite()
	}()
	_, err = io.CopyBuffer(stdout, c, buf) // the bridge's, until it ends the session
	log.Debug("relay: the bridge's side ended", "err", err)
	return true, nil
}

// workspaceBridge is a bridge started for an editor, and the editors it serves over time.
type workspaceBridge struct {
	r       *running
	slot    *slot.Slot
	opt     stdio.Options // for the sessions of attached editors
	grace   time.Duration
	log     *slog.Logger
	asm     assembly
	away    *lsp.Manager                // language servers for getDiagnostics while no editor is attached
	stopped atomic.Bool                 // an editor asked the bridge to end (shutdown)
	hello   atomic.Pointer[stdio.Hello] // the attached editor's connection; nil: none
}

// turnEnded and stateChanged tell the attached editor, if any (review's notifications).
func (wb *workspaceBridge) turnEnded(s review.Summary) {
	if h := wb.hello.Load(); h != nil && h.TurnEnded != nil {
		h.TurnEnded(s)
	}
}

// asker is the attached editor's, if any (the permission prompts).
func (wb *workspaceBridge) asker() permission.Asker {
	if h := wb.hello.Load(); h != nil && h.Asker != nil {
		return h.Asker()
	}
	return nil
}

func (wb *workspaceBridge) stateChanged(s claudestate.Session) {
	if h := wb.hello.Load(); h != nil && h.StateChanged != nil {
		h.StateChanged(s)
	}
}

// outlive keeps the bridge after its editor went, for as long as a Claude is connected and
// grace after the last one left, serving each editor that attaches meanwhile. It returns when
// the bridge should end: no Claude when the editor went, the grace passed, ctx ended (a
// signal), or an editor's shutdown.
func (wb *workspaceBridge) outlive(ctx context.Context) {
	for !wb.stopped.Load() && ctx.Err() == nil && wb.r.Model.Clients() > 0 {
		c := wb.detached(ctx)
		if c == nil {
			return
		}
		wb.serveAttached(ctx, c)
	}
}

// detached is the bridge with no editor: the selection Claude sees is cleared, the lock names
// this process, and the socket listens. It returns the next editor's connection, or nil when
// the bridge should end.
func (wb *workspaceBridge) detached(ctx context.Context) net.Conn {
	m := wb.r.Model
	// The editor is gone: a SIGHUP now is its exit's, not a stop (Emacs hangs up every process
	// it started as it quits, after waiting for the line below; issue 39 item 2). SIGINT, SIGTERM
	// and shutdown still end the bridge.
	signal.Ignore(syscall.SIGHUP)
	wb.slot.Detach(nil)
	wb.hello.Store(nil)
	// An empty selection with no file: the CLI then has neither a selection nor an open file
	// to tell the model about (it reads text and filePath; both empty mean nothing).
	m.SelectionChanged(ide.Selection{Selection: ide.SelectionPos{IsEmpty: true}})
	wb.awayDiagnostics()
	wb.log.Info("the editor went away; staying for Claude", "clients", m.Clients(), "grace", wb.grace)

	conns := make(chan net.Conn)
	ln, err := attach.Listen(attach.SocketPath(wb.r.LockDir(), m.Folders()[0]))
	if err != nil {
		wb.log.Warn("no editor can attach to this bridge", "err", err)
	} else {
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept(func(uid int, err error) {
					wb.log.Warn("refused an attach from another user", "uid", uid, "err", err)
				})
				if err != nil {
					close(conns)
					return
				}
				select {
				case conns <- c:
				case <-ctx.Done():
					c.Close()
				}
			}
		}()
	}
	// After Listen: a lock naming this process says an editor can attach now.
	wb.r.SetPID(0)
	// The grace runs from the moment the last Claude left, while none is connected.
	grace, armed := time.NewTimer(wb.grace), true
	defer grace.Stop()
	arm := func() {
		if n := m.Clients(); n > 0 && armed {
			grace.Stop()
			armed = false
		} else if n == 0 && !armed {
			grace.Reset(wb.grace)
			armed = true
		}
	}
	arm()
	for {
		select {
		case c, ok := <-conns:
			if !ok {
				conns = nil
				continue
			}
			return c
		case <-wb.slot.Changed():
			arm()
		case <-grace.C:
			wb.log.Info("no Claude connected and no editor: ending", "grace", wb.grace)
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// awayDiagnostics gives getDiagnostics the bridge's own language servers while no editor is
// attached, once: those of --lsp, else the ones found on $PATH. They start on the first request
// and only where the user trusts the workspace (else the answer is empty, never an error).
func (wb *workspaceBridge) awayDiagnostics() {
	if wb.away != nil || wb.r.lsp != nil {
		return // started, or the editor's own diagnostics come from the bridge anyway
	}
	servers := wb.asm.LSP
	if len(servers) == 0 {
		servers = lsp.Detect(nil)
	}
	if len(servers) == 0 {
		return
	}
	info := wb.r.Model.Info()
	m, err := wb.asm.languageServers(wb.r.Model.Folders(), info.Encoding, servers)
	if err != nil {
		wb.log.Warn("language servers while no editor is attached", "err", err)
		return
	}
	wb.away = m
	wb.slot.SetOwnDiagnostics(m.EditorDiagnostics)
}

// serveAttached runs the editor protocol with an attached editor until it goes.
func (wb *workspaceBridge) serveAttached(ctx context.Context, c net.Conn) {
	defer c.Close()
	var r io.Reader = c
	var w io.WriteCloser = c
	// The socket as an *os.File: the editor protocol's reader then waits in the poller and
	// batches small messages, as it does on a pipe (docs/architecture.md, Concurrency).
	if f, err := c.(*net.UnixConn).File(); err == nil {
		defer f.Close()
		c.Close()
		r, w = f, f
	}
	opt := wb.opt
	opt.Attached = true
	var ed ide.Editor
	opt.Start = func(h stdio.Hello) (stdio.Bridge, error) {
		ed = h.Editor
		wb.hello.Store(&h)
		wb.slot.Attach(slot.Editor{Editor: h.Editor, Info: h.Info, Code: h.Code, Events: h.Events})
		wb.r.Model.SetPaused(false) // a new editor starts sharing, whatever the last one paused
		wb.log.Info("an editor attached", "ide", h.Info.Name, "pid", h.PID)
		return editorBridge{wb.r}, nil
	}
	opt.Ready = func() { go wb.replay() }
	opt.Shutdown = func() { wb.stopped.Store(true) }
	if err := stdio.Serve(ctx, r, w, opt); err != nil {
		wb.log.Warn("attached editor", "err", err)
	}
	if ed != nil {
		wb.slot.Detach(ed)
	}
}

// replay shows the attached editor every proposal still pending.
func (wb *workspaceBridge) replay() {
	pending := map[string]bool{}
	for _, d := range wb.r.Model.Diffs() {
		if d.State == "pending" {
			pending[d.TabName] = true
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*wb.opt.EditorTimeout)
	defer cancel()
	if err := wb.slot.Replay(ctx, pending); err != nil {
		wb.log.Warn("showing pending proposals to the attached editor", "err", err)
	}
}
