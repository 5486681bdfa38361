package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// Claude's permission prompts (internal/permission) asked in serve's terminal between diffs:
// one key, y allow, a always (the CLI's suggestions), n deny, r deny with a reason typed in.
// A prompt withdrawn while on screen (answered in Claude's terminal, the session ended) says so
// and takes no answer; the broker refuses a decision on it anyway.

// asking is one permission prompt, queued or on screen.
type asking struct {
	req    permission.Request
	ctx    context.Context // done when withdrawn
	cancel context.CancelFunc
	why    string // why it was withdrawn
}

// perms is the Editor's permission state.
type perms struct {
	mu     sync.Mutex
	queue  []*asking
	byID   map[uint64]*asking
	decide func(uint64, permission.Decision) error
	tools  permission.Tools // the tools asked about (serve --permissions; New: all)
}

// BindPermissions sets who takes the decisions (the bridge's permission.Broker.Decide).
func (e *Editor) BindPermissions(decide func(uint64, permission.Decision) error) {
	e.perm.mu.Lock()
	e.perm.decide = decide
	e.perm.mu.Unlock()
}

// AskAbout limits the prompts asked here to these tools' (serve --permissions); the others
// stay in Claude's terminal alone, at once.
func (e *Editor) AskAbout(tools permission.Tools) {
	e.perm.mu.Lock()
	e.perm.tools = tools
	e.perm.mu.Unlock()
}

// Asker is this terminal as the editor that answers permission prompts (nil without
// BindPermissions, with --auto: nobody reads the keys, or asked about no tool).
func (e *Editor) Asker() permission.Asker {
	e.perm.mu.Lock()
	defer e.perm.mu.Unlock()
	if e.perm.decide == nil || e.auto != Ask || !e.perm.tools.Any() {
		return nil
	}
	return termAsker{e}
}

type termAsker struct{ e *Editor }

// errNotListed: --permissions leaves this tool out; the terminal decides at once.
var errNotListed = errors.New("serve is not asked about this tool (--permissions)")

// Ask queues the prompt for the Run loop: it is shown between diffs.
func (a termAsker) Ask(_ context.Context, r permission.Request) error {
	a.e.perm.mu.Lock()
	listed := a.e.perm.tools.Match(r.Tool)
	a.e.perm.mu.Unlock()
	if !listed {
		return errNotListed
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := &asking{req: r, ctx: ctx, cancel: cancel}
	p := &a.e.perm
	p.mu.Lock()
	if p.byID == nil {
		p.byID = map[uint64]*asking{}
	}
	p.queue = append(p.queue, q)
	p.byID[r.ID] = q
	p.mu.Unlock()
	select {
	case a.e.wake <- struct{}{}:
	default:
	}
	return nil
}

func (a termAsker) Withdraw(id uint64, why string) {
	p := &a.e.perm
	p.mu.Lock()
	defer p.mu.Unlock()
	if q := p.byID[id]; q != nil {
		q.why = why
		q.cancel()
		delete(p.byID, id)
	}
}

// Gone: the terminal lives as long as the bridge.
func (termAsker) Gone() <-chan struct{} { return nil }

// nextPermission is the next prompt still pending, or nil.
func (e *Editor) nextPermission() *asking {
	p := &e.perm
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.queue) > 0 {
		q := p.queue[0]
		p.queue = p.queue[1:]
		if q.ctx.Err() == nil {
			return q
		}
	}
	return nil
}

// describeInput is the tool input as lines for the terminal, escaped: a Bash command or a URL
// by itself, anything else as its JSON.
func describeInput(in json.RawMessage) string {
	var s string
	if json.Unmarshal(in, &s) == nil { // over permission.MaxInput: already cut, with a note
		return termtext.Text(s)
	}
	var fields map[string]any
	if json.Unmarshal(in, &fields) == nil {
		for _, k := range []string{"command", "url", "file_path"} {
			if v, ok := fields[k].(string); ok {
				out := k + ": " + termtext.Text(v)
				if d, ok := fields["description"].(string); ok {
					out += "\n  (" + termtext.Line(d) + ")"
				}
				return out
			}
		}
	}
	return termtext.Text(string(in))
}

// askPermission shows one prompt and sends the user's decision. It returns whether a key read
// is still outstanding (as review does).
func (e *Editor) askPermission(ctx context.Context, q *asking, pendingRead bool) bool {
	r := q.req
	fmt.Fprintf(e.out, "\n%s\n  %s\n", e.paint("1", fmt.Sprintf("Claude (session %s) asks to use %s:", termtext.Line(short8(r.Session)), termtext.Line(r.Tool))),
		strings.ReplaceAll(describeInput(r.Input), "\n", "\n  "))
	always := len(r.Suggestions) > 0
	ask := "Allow? [y]es / [n]o / [r]eason, then deny: "
	if always {
		ask = "Allow? [y]es / [a]lways / [n]o / [r]eason, then deny: "
	}
	reason := false
	var typed reasonLine
	deny := func(msg string) {
		e.decidePermission(r.ID, permission.Decision{Behavior: "deny", Message: msg}, "denied: "+termtext.Line(msg))
	}
	for {
		if !reason {
			fmt.Fprint(e.out, e.paint("1", ask))
		}
		e.raw() // raw only while a key is awaited, as review does (keys.go)
		read, ok, stillPending := e.nextKey(ctx, q.ctx, pendingRead)
		e.cooked()
		pendingRead = stillPending
		if ctx.Err() != nil { // serve is stopping
			return pendingRead
		}
		if q.ctx.Err() != nil {
			fmt.Fprintf(e.out, "\n(withdrawn: %s; nothing was answered here)\n", termtext.Line(q.why))
			return pendingRead
		}
		if !ok { // no more input: the terminal decides
			fmt.Fprintln(e.out, "\n(no more input: Claude's terminal decides)")
			e.withdrawPermission(r.ID)
			return false
		}
		if reason {
			if e.keys == nil { // a whole line
				deny(read)
				return false
			}
			if msg, done := typed.add(e.out, read); done {
				deny(msg)
				return false
			}
			continue
		}
		key := e.firstKey(read)
		switch strings.ToLower(key) {
		case "y", "yes":
			fmt.Fprintln(e.out, "y")
			e.decidePermission(r.ID, permission.Decision{Behavior: "allow"}, "allowed")
			return false
		case "a", "always":
			if !always {
				fmt.Fprintln(e.out, "a: Claude suggested no rule to keep; press y, n or r")
				continue
			}
			fmt.Fprintln(e.out, "a")
			e.decidePermission(r.ID, permission.Decision{Behavior: "allow", Always: true}, "allowed, and Claude keeps its suggested rule")
			return false
		case "n", "no":
			fmt.Fprintln(e.out, "n")
			e.decidePermission(r.ID, permission.Decision{Behavior: "deny"}, "denied")
			return false
		case "r", "reason":
			fmt.Fprintln(e.out, "r")
			fmt.Fprint(e.out, "reason (Enter sends): ")
			reason = true
			if e.keys != nil && len(read) > 1 { // the reason typed or pasted right after r
				if msg, done := typed.add(e.out, read[1:]); done {
					deny(msg)
					return false
				}
			}
		case "":
		default:
			fmt.Fprintf(e.out, "%s: press y, a, n or r\n", termtext.Line(key))
		}
	}
}

// reasonLine is a reason typed on a terminal in raw mode, from what each read returned: a
// paste comes whole, a character split between two reads is kept until its last byte.
type reasonLine struct {
	typed   []rune
	partial []byte // the first bytes of a character whose rest is still to come
}

// add takes one read, echoes what it keeps, and returns the reason when Enter ends it
// (anything after Enter in the same read is dropped). Backspace erases a character; control
// characters and escape sequences (an arrow) are not kept.
func (l *reasonLine) add(out io.Writer, read string) (string, bool) {
	b := append(l.partial, read...)
	l.partial = nil
	var echo strings.Builder
	defer func() { io.WriteString(out, echo.String()) }()
	for len(b) > 0 {
		if !utf8.FullRune(b) {
			l.partial = b
			break
		}
		c, size := utf8.DecodeRune(b)
		b = b[size:]
		switch {
		case c == '\r' || c == '\n':
			return string(l.typed), true
		case c == 0x7f || c == '\b':
			if len(l.typed) > 0 {
				l.typed = l.typed[:len(l.typed)-1]
				echo.WriteString("\b \b")
			}
		case c == 0x1b: // an arrow, Home ...: ESC [ or O, parameters, a final byte
			b = skipEscape(b)
		case c != utf8.RuneError && unicode.IsPrint(c):
			l.typed = append(l.typed, c)
			echo.WriteRune(c)
		}
	}
	return "", false
}

// skipEscape drops the rest of an escape sequence whose ESC was just read (CSI or SS3;
// otherwise only the ESC goes).
func skipEscape(b []byte) []byte {
	if len(b) == 0 || (b[0] != '[' && b[0] != 'O') {
		return b
	}
	for i := 1; i < len(b); i++ {
		if b[i] >= 0x40 && b[i] <= 0x7e {
			return b[i+1:]
		}
	}
	return nil
}

// nextKey waits for one answer (a key, or a line off a terminal), or for run or q to end.
func (e *Editor) nextKey(run, q context.Context, pendingRead bool) (key string, ok, stillPending bool) {
	if !pendingRead {
		select {
		case e.want <- struct{}{}:
		case <-run.Done():
			return "", true, false
		case <-q.Done():
			return "", true, false
		}
	}
	select {
	case key, ok = <-e.lines:
		return key, ok, false
	case <-run.Done():
		return "", true, true
	case <-q.Done():
		return "", true, true
	}
}

func (e *Editor) decidePermission(id uint64, d permission.Decision, done string) {
	e.perm.mu.Lock()
	decide := e.perm.decide
	delete(e.perm.byID, id)
	e.perm.mu.Unlock()
	e.confirm(decide(id, d), done)
}

func (e *Editor) withdrawPermission(id uint64) {
	e.perm.mu.Lock()
	delete(e.perm.byID, id)
	e.perm.mu.Unlock()
}

func short8(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}
