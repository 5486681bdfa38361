// Package terminal is the built-in editor of `serve`: for editors without a plugin, it shows each
// proposed diff in the terminal and lets the user accept (y), reject (n) or edit the proposal in
// $EDITOR and accept the result (e). With Auto set it answers by itself (scripts, demos).
package terminal

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// Auto answers for the user.
type Auto string

const (
	Ask    Auto = ""
	Accept Auto = "accept"
	Reject Auto = "reject"
)

// Decider receives the user's decisions (the ide.Model).
type Decider interface {
	DiffAccepted(tab, text string) error
	DiffRejected(tab string) error
}

// Editor is an ide.Editor on a terminal. Create it with New, then Bind the model, then Run.
type Editor struct {
	out    io.Writer
	lines  chan string // answers typed by the user
	want   chan struct{}
	auto   Auto
	color  bool
	editor string // $EDITOR

	mu      sync.Mutex
	d       Decider
	queue   []ide.ShowDiffParams
	current string             // tab under review
	cancel  context.CancelFunc // cancels the current prompt
	wake    chan struct{}
	once    sync.Once

	opener   *Opener       // --open-cmd (open.go); nil: openFile only prints
	openTerm bool          // the editor gets the terminal
	opens    chan []string // editor commands waiting for the Run loop

	autoQ       []autoShown // answered by --auto, to print (auto.go)
	autoDropped int
}

// Close stops asking for input. A read already waiting on the input ends when the input does.
func (e *Editor) Close() { e.once.Do(func() { close(e.want) }) }

// Info is what this editor serves: diffs and opening files (as a message).
func Info(name string) ide.EditorInfo {
	return ide.EditorInfo{Name: name, Caps: ide.Capabilities{OpenFile: true, ShowDiff: true, CanCloseTabs: true}, Encoding: ide.UTF8, TrackSelection: true}
}

// New returns an Editor reading answers from in and writing to out.
func New(in io.Reader, out io.Writer, auto Auto, color bool) *Editor {
	e := &Editor{out: out, lines: make(chan string, 1), want: make(chan struct{}), auto: auto, color: color,
		editor: os.Getenv("EDITOR"), wake: make(chan struct{}, 1)}
	if e.editor == "" {
		e.editor = "vi"
	}
	go e.readLines(in)
	return e
}

// readLines reads a line only when one is wanted, so that $EDITOR gets the terminal to itself.
func (e *Editor) readLines(in io.Reader) {
	r := bufio.NewReader(in)
	for range e.want {
		line, err := r.ReadString('\n')
		if err != nil && line == "" {
			close(e.lines)
			return
		}
		e.lines <- strings.TrimSpace(line)
	}
}

// Bind sets who receives decisions; call before serving.
func (e *Editor) Bind(d Decider) { e.mu.Lock(); e.d = d; e.mu.Unlock() }

// Run reviews diffs one at a time until ctx ends.
func (e *Editor) Run(ctx context.Context) {
	pendingRead := false
	opens := e.openReady()
	for {
		if argv := e.nextOpen(); argv != nil {
			e.runOpen(ctx, argv)
			continue
		}
		if a, ok := e.nextAuto(); ok {
			e.printAuto(a.p, a.old)
			continue
		}
		e.mu.Lock()
		var p *ide.ShowDiffParams
		if len(e.queue) > 0 {
			p = &e.queue[0]
			e.queue = e.queue[1:]
		}
		var pctx context.Context
		if p != nil {
			pctx, e.cancel = context.WithCancel(ctx)
			e.current = p.TabName
		}
		e.mu.Unlock()
		if p == nil {
			select {
			case <-ctx.Done():
				return
			case <-e.wake:
				continue
			case argv := <-opens:
				e.runOpen(ctx, argv)
				continue
			}
		}
		pendingRead = e.review(pctx, *p, pendingRead)
		e.mu.Lock()
		e.cancel()
		e.current, e.cancel = "", nil
		e.mu.Unlock()
	}
}

func (e *Editor) paint(code, s string) string {
	if !e.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// review shows one diff and settles it. It returns whether a line read is still outstanding.
func (e *Editor) review(ctx context.Context, p ide.ShowDiffParams, pendingRead bool) bool {
	pr := diffProposal(p.FilePath, readOld(p.FilePath), p.NewContents.String())
	fmt.Fprintf(e.out, "\n%s\n", e.paint("1", "Claude proposes a change to "+termtext.Line(p.FilePath)))
	e.showDiff(pr) // through the pager when long (pager.go)
	fmt.Fprintln(e.out, e.paint("1", pr.Summary()))
	e.mu.Lock()
	d := e.d
	e.mu.Unlock()
	for {
		fmt.Fprint(e.out, e.paint("1", "Accept this change? [y]es / [n]o / [e]dit, then accept: "))
		if !pendingRead {
			select {
			case e.want <- struct{}{}:
				pendingRead = true
			case <-ctx.Done():
				fmt.Fprintln(e.out, "\n(closed by Claude)")
				return pendingRead
			}
		}
		var line string
		var ok bool
		select {
		case line, ok = <-e.lines:
			pendingRead = false
			if !ok {
				fmt.Fprintln(e.out, "\n(no more input: rejected)")
				d.DiffRejected(p.TabName)
				return false
			}
		case <-ctx.Done():
			fmt.Fprintln(e.out, "\n(closed by Claude)")
			return pendingRead
		}
		switch strings.ToLower(line) {
		case "y", "yes":
			if err := d.DiffAccepted(p.TabName, p.NewContents.String()); err != nil {
				fmt.Fprintf(e.out, "could not accept: %v\n", err)
			}
			return false
		case "n", "no":
			d.DiffRejected(p.TabName)
			return false
		case "e", "edit":
			text, err := e.edit(p)
			if err != nil {
				fmt.Fprintf(e.out, "%v\n", err)
				continue
			}
			if err := d.DiffAccepted(p.TabName, text); err != nil {
				fmt.Fprintf(e.out, "could not accept: %v\n", err)
			}
			return false
		}
	}
}

// edit opens the proposal in $EDITOR (on the real terminal) and returns the saved text. The
// user's file itself is never touched: the proposal lives in a temporary file.
func (e *Editor) edit(p ide.ShowDiffParams) (string, error) {
	f, err := os.CreateTemp("", "claude-proposal-*-"+sanitize(p.FilePath))
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(p.NewContents.String()); err != nil {
		f.Close()
		return "", err
	}
	f.Close()
	cmd := exec.Command("sh", "-c", e.editor+` "$1"`, "sh", f.Name())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s failed: %w", e.editor, err)
	}
	b, err := os.ReadFile(f.Name())
	return string(b), err
}

func sanitize(path string) string {
	base := path[strings.LastIndex(path, "/")+1:]
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '*' {
			return '_'
		}
		return r
	}, base)
}

// ShowDiff queues the diff for review and returns at once. With --auto it answers first and
// queues the diff only to be printed (auto.go).
func (e *Editor) ShowDiff(ctx context.Context, p ide.ShowDiffParams) error {
	if e.auto != Ask {
		e.queueAuto(p, e.autoDecide(p))
		return nil
	}
	e.mu.Lock()
	e.queue = append(e.queue, p)
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
	return nil
}

// CloseDiff drops a queued diff or ends the prompt of the current one.
func (e *Editor) CloseDiff(ctx context.Context, tab string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, q := range e.queue {
		if q.TabName == tab {
			e.queue = append(e.queue[:i], e.queue[i+1:]...)
			break
		}
	}
	if e.current == tab && e.cancel != nil {
		e.cancel()
	}
	return nil
}

// OpenFile tells the user which file Claude wants to show.
func (e *Editor) OpenFile(ctx context.Context, p ide.OpenFileParams) (ide.OpenFileResult, error) {
	where := ""
	if p.Selection != nil {
		where = fmt.Sprintf(" (lines %d-%d)", p.Selection.Start.Line+1, p.Selection.End.Line+1)
	}
	fmt.Fprintf(e.out, "\nClaude opened %s%s\n", termtext.Line(p.FilePath), where)
	e.queueOpen(p)
	return ide.OpenFileResult{}, nil
}

var errNo = fmt.Errorf("not supported by the terminal")

func (e *Editor) SetBufferText(context.Context, string, string) error      { return errNo }
func (e *Editor) OpenEditors(context.Context) ([]ide.OpenEditor, error)    { return nil, errNo }
func (e *Editor) CurrentSelection(context.Context) (*ide.Selection, error) { return nil, errNo }
func (e *Editor) CheckDirty(context.Context, string) (ide.DocState, error) {
	return ide.DocState{}, errNo
}
func (e *Editor) Save(context.Context, string) (ide.DocState, error)         { return ide.DocState{}, errNo }
func (e *Editor) ExecuteCode(context.Context, string) ([]ide.Content, error) { return nil, errNo }
func (e *Editor) Diagnostics(context.Context, string) ([]ide.FileDiagnostics, error) {
	return nil, errNo
}
