// Package terminal is the built-in editor of `serve`: for editors without a plugin, it shows each
// proposed diff in the terminal and lets the user accept (y), reject (n) or edit the proposal in
// $EDITOR and accept the result (e): on a terminal one key answers, without Enter, and the answer
// is confirmed on screen. With Auto set it answers by itself (scripts, demos).
//
// Everything printed that came from Claude or a file (paths, the proposal, the old file) goes
// through termtext, so a control character or ESC sequence in it is shown, never acted on: the
// printout IS the review (issue 15 item 1).
//
// An answer settles exactly the proposal that was displayed (issue 15 item 4). The spec lets a
// same-name openDiff replace a pending one, and that rule is kept (an accepted risk: another
// Claude session of the same user can replace a proposal under review); when it happens while
// the proposal is on screen, its prompt is withdrawn with a message, the new proposal is shown
// and asked about, and a line typed before the new one was displayed is not taken as its answer.
// Answers go through ide.Model's Decide with the proposal's Seq, so even a replacement racing
// with the keystroke cannot make `y` accept a text not displayed.
package terminal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
	"golang.org/x/term"
)

// typeAheadGuard: after a replaced proposal's prompt is withdrawn, a line that arrives this soon
// after the new proposal is displayed was typed for the old one and is not taken as an answer.
const typeAheadGuard = time.Second

// Auto answers for the user.
type Auto string

const (
	Ask    Auto = ""
	Accept Auto = "accept"
	Reject Auto = "reject"
)

// Decider receives the user's decisions (the ide.Model): each names the proposal displayed by
// its ShowDiffParams.Seq and fails if that proposal was replaced or closed. Pending tells
// whether a queued proposal still waits for an answer, so that one already settled is never
// displayed.
type Decider interface {
	Decide(seq uint64, d ide.Decision) error
	Pending(seq uint64) bool
	// Folders are the workspace folders: no program the reviewer runs is taken from them.
	Folders() []string
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
	current string                  // tab under review
	cancel  context.CancelCauseFunc // cancels the current prompt (errClosed: by Claude)
	wake    chan struct{}
	// replaced: the current prompt was cancelled by a same-name proposal; guard is
	// typeAheadGuard (tests change it).
	replaced bool
	guard    time.Duration
	once     sync.Once

	keys *keyMode // nil: the input is not a terminal

	opener   *Opener       // --open-cmd (open.go); nil: openFile only prints
	openTerm bool          // the editor gets the terminal
	opens    chan []string // editor commands waiting for the Run loop

	autoQ       []autoShown // answered by --auto, to print (auto.go)
	autoDropped int

	perm perms // Claude's permission prompts (permission.go)
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
		editor: os.Getenv("EDITOR"), wake: make(chan struct{}, 1), guard: typeAheadGuard}
	e.perm.tools = permission.AllTools()
	if e.editor == "" {
		e.editor = "vi"
	}
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		e.keys = &keyMode{fd: int(f.Fd())}
		go e.readKeys(f)
	} else {
		go e.readLines(in)
	}
	return e
}

// readKeys is readLines for a terminal: one key answers, without Enter (the terminal is in raw
// mode only while a question waits for a key, so $EDITOR, Ctrl-C and the lines printed between
// questions behave as usual: keyMode).
// Ctrl-C during the wait is raised as the interrupt the terminal would have sent; Ctrl-D ends
// the input. What one read returns goes out whole (a paste, a multi-byte character, an
// arrow's sequence): a question takes its first byte (firstKey), a reason all of it.
func (e *Editor) readKeys(f *os.File) {
	buf := make([]byte, 4096)
	for range e.want {
		// The question made the terminal raw before it asked for this read (review).
		n, err := f.Read(buf)
		e.keys.cooked()
		if err != nil || n == 0 || buf[0] == 4 {
			close(e.lines)
			return
		}
		if buf[0] == 3 {
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				p.Signal(os.Interrupt)
			}
		}
		e.lines <- string(buf[:n])
	}
}

// firstKey is the answer to a one-key question in what a read of a terminal returned: its
// first byte (of an arrow's sequence, ESC: not an answer; of keys typed ahead, the first).
func (e *Editor) firstKey(read string) string {
	if e.keys != nil && len(read) > 1 {
		return read[:1]
	}
	return read
}

// readLines reads a line only when one is wanted, so that $EDITOR gets the terminal to itself.
func (e *Editor) readLines(in io.Reader) { e.readLinesFrom(bufio.NewReader(in)) }

func (e *Editor) readLinesFrom(r *bufio.Reader) {
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
	pendingRead, afterReplace := false, false
	opens := e.openReady()
	for {
		if argv := e.nextOpen(); argv != nil {
			e.runOpen(ctx, argv)
			continue
		}
		if a, ok := e.nextAuto(); ok {
			if a.note != "" {
				e.printNote(a.note)
			} else {
				e.printAuto(a.p, a.old, a.existed)
			}
			continue
		}
		if q := e.nextPermission(); q != nil {
			pendingRead = e.askPermission(ctx, q, pendingRead)
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
			pctx, e.cancel = context.WithCancelCause(ctx)
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
		// A same-name openDiff settles the queued proposal it replaces before it sends this
		// editor the new one (ide.Model.OpenDiff): a proposal already settled is not displayed.
		shown := e.stillPending(*p)
		if shown {
			pendingRead = e.review(pctx, *p, pendingRead, afterReplace)
		}
		e.mu.Lock()
		e.cancel(nil)
		afterReplace = shown && e.replaced
		e.current, e.cancel, e.replaced = "", nil, false
		e.mu.Unlock()
	}
}

// stillPending reports whether p still waits for an answer (true without a Decider).
func (e *Editor) stillPending(p ide.ShowDiffParams) bool {
	e.mu.Lock()
	d := e.d
	e.mu.Unlock()
	return d == nil || d.Pending(p.Seq)
}

func (e *Editor) paint(code, s string) string {
	if !e.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// review shows one diff and settles it. It returns whether a line read is still outstanding.
func (e *Editor) review(ctx context.Context, p ide.ShowDiffParams, pendingRead, afterReplace bool) bool {
	pr := e.diffProposal(p.FilePath, string(readOld(p.FilePath)), p.NewContents.String(), exists(p.FilePath))
	fmt.Fprintf(e.out, "\n%s\n", e.paint("1", ide.AgentTitle(p.Agent)+" proposes a change to "+termtext.Line(p.FilePath)))
	e.showDiff(pr) // through the pager when long (pager.go)
	fmt.Fprintln(e.out, e.paint("1", pr.Summary()))
	shownAt := time.Now()
	e.mu.Lock()
	d := e.d
	e.mu.Unlock()
	// Every way out of the question leaves the terminal cooked: an answer, the end of the input,
	// and a proposal closed or replaced by Claude while the key read is still waiting.
	defer e.cooked()
	question := e.paint("1", "Accept this change? [y]es / [n]o / [e]dit, then accept: ")
	for {
		fmt.Fprint(e.out, question)
		// Raw before the read is asked for: the read left waiting by a withdrawn question, if
		// any, takes this question's key.
		e.raw()
		if !pendingRead {
			select {
			case e.want <- struct{}{}:
				pendingRead = true
			case <-ctx.Done():
				e.withdrawn(ctx, p)
				return pendingRead
			}
		}
		var line string
		ok, got := false, false
		for !got {
			select {
			case <-e.wake: // a notice (or a proposal for later): notices go above the question
				e.notesAbove(question)
			case line, ok = <-e.lines:
				got = true
			case <-ctx.Done():
				e.cooked()
				e.withdrawn(ctx, p)
				return pendingRead
			}
		}
		pendingRead = false
		e.cooked()
		line = e.firstKey(line)
		if !ok {
			fmt.Fprintln(e.out, "\n(no more input: rejected)")
			d.Decide(p.Seq, ide.Decision{})
			return false
		}
		if afterReplace && time.Since(shownAt) < e.guard {
			fmt.Fprintln(e.out, "(that answer came before this new proposal was shown; answer again)")
			continue
		}
		name := termtext.Line(p.FilePath)
		switch strings.ToLower(line) {
		case "y", "yes":
			fmt.Fprintln(e.out, "y")
			e.confirm(d.Decide(p.Seq, ide.Decision{Accept: true}), "accepted: "+ide.AgentTitle(p.Agent)+" writes "+name)
			return false
		case "n", "no":
			fmt.Fprintln(e.out, "n")
			e.confirm(d.Decide(p.Seq, ide.Decision{}), "rejected: "+name+" is left as it is")
			return false
		case "e", "edit":
			fmt.Fprintln(e.out, "e")
			text, err := e.edit(p)
			if err != nil {
				fmt.Fprintf(e.out, "%s\n", termtext.Line(err.Error()))
				continue
			}
			e.confirm(d.Decide(p.Seq, ide.Decision{Accept: true, Text: ide.TextOf(text)}), "accepted with your edits: "+ide.AgentTitle(p.Agent)+" writes "+name)
			return false
		case "":
		default:
			fmt.Fprintf(e.out, "%s: press y, n or e\n", termtext.Line(line))
		}
	}
}

// confirm shows what an answer did: done, or why it was not taken.
func (e *Editor) confirm(err error, done string) {
	if err != nil {
		e.report(err)
		return
	}
	fmt.Fprintln(e.out, e.paint("32", done))
}

// errClosed is why a question ends when Claude closes its proposal (close_tab, closeAllDiffTabs,
// the client gone). The CLI sends close_tab when the user answered in Claude's own terminal.
var errClosed = errors.New("closed by Claude")

// writeWait bounds how long a question closed by Claude waits to see whether Claude writes the
// proposal (the user accepted in Claude's terminal) before saying it was not accepted.
const writeWait = time.Second

// withdrawn says why a question ended without an answer, and, when Claude closed it, what the
// user's answer in Claude's terminal did: the file then holds the proposal or it does not.
func (e *Editor) withdrawn(ctx context.Context, p ide.ShowDiffParams) {
	e.mu.Lock()
	replaced := e.replaced
	e.mu.Unlock()
	if replaced {
		fmt.Fprintln(e.out, "\n(withdrawn: Claude replaced this proposal with a new one of the same name; nothing was answered for it. The new proposal follows.)")
		return
	}
	if !errors.Is(context.Cause(ctx), errClosed) {
		fmt.Fprintln(e.out, "\n(not answered: serve is stopping)")
		return
	}
	name, who := termtext.Line(p.FilePath), ide.AgentTitle(p.Agent)
	if holds(p.FilePath, p.NewContents.String(), writeWait) {
		fmt.Fprintln(e.out, "\n"+e.paint("32", "(accepted in "+who+"'s terminal: "+who+" wrote "+name+")"))
		return
	}
	fmt.Fprintln(e.out, "\n(closed by "+who+", not accepted: rejected in "+who+"'s terminal, or "+who+" moved on; "+name+" is left as it is)")
}

// holds reports whether the file at path holds text within wait.
func holds(path, text string, wait time.Duration) bool {
	for end := time.Now().Add(wait); ; time.Sleep(20 * time.Millisecond) {
		if fi, err := os.Stat(path); err == nil && fi.Size() == int64(len(text)) && string(readOld(path)) == text {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// raw and cooked switch the terminal's mode when the input is one (keyMode).
func (e *Editor) raw() {
	if e.keys != nil {
		e.keys.raw()
	}
}

func (e *Editor) cooked() {
	if e.keys != nil {
		e.keys.cooked()
	}
}

// report prints why an answer was not taken (the proposal was replaced or closed meanwhile).
func (e *Editor) report(err error) {
	if err != nil {
		fmt.Fprintf(e.out, "not answered: %s\n", termtext.Line(err.Error()))
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
	cmd, err := e.command(context.Background(), "sh", "-c", e.editor+` "$1"`, "sh", f.Name())
	if err != nil {
		return "", fmt.Errorf("%s not run: %w", e.editor, err)
	}
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
		if r == '/' || r == '*' || termtext.Line(string(r)) != string(r) {
			return '_'
		}
		return r
	}, base)
}

// ShowDiff queues the diff for review and returns at once. With --auto it answers first and
// queues the diff only to be printed (auto.go).
func (e *Editor) ShowDiff(ctx context.Context, p ide.ShowDiffParams) error {
	if e.auto != Ask {
		old, existed := e.autoDecide(p)
		e.queueAuto(p, old, existed)
		return nil
	}
	// A diff with the name of one queued takes its place; one with the name of the diff under
	// review withdraws that prompt and is reviewed next.
	e.mu.Lock()
	switch i := e.queued(p.TabName); {
	case e.current == p.TabName && e.cancel != nil:
		e.replaced = true
		e.cancel(nil)
		e.queue = append([]ide.ShowDiffParams{p}, e.queue...)
	case i >= 0:
		e.queue[i] = p
	default:
		e.queue = append(e.queue, p)
	}
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
	return nil
}

func (e *Editor) queued(tab string) int {
	for i, q := range e.queue {
		if q.TabName == tab {
			return i
		}
	}
	return -1
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
		e.cancel(errClosed)
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
