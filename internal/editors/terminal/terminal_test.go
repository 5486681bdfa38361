package terminal

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// tscreen is the terminal's output, safe to read while the reviewer writes.
type tscreen struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *tscreen) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *tscreen) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// waitFor waits (a bounded few seconds) until the tscreen shows want n times.
func (s *tscreen) waitFor(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(s.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("tscreen never showed %q %d times; it shows:\n%s", want, n, s.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type rig struct {
	m      *ide.Model
	ed     *Editor
	scr    *tscreen
	typing *io.PipeWriter
	dir    string
}

// newRig runs a terminal reviewer on a real ide.Model, typed into through a pipe.
func newRig(t *testing.T) *rig {
	t.Helper()
	in, typing := io.Pipe()
	scr := &tscreen{}
	ed := New(in, scr, Ask, false)
	ed.guard = 0
	r := runRig(t, ed, ed, scr, t.TempDir(), func() { typing.Close() })
	r.typing = typing
	return r
}

// runRig binds the reviewer ed, seen by the model through view (ed or a wrapper of it), to a
// real ide.Model of the folder dir, and runs it; the test's cleanup stops them, calling
// closeInput (which ends a read of ed's input still waiting) between.
func runRig(t *testing.T, ed *Editor, view ide.Editor, scr *tscreen, dir string, closeInput func()) *rig {
	t.Helper()
	m := ide.New(view, Info("Terminal"), []string{dir}, ide.Events{}, nil)
	ed.Bind(m)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { ed.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; ed.Close(); closeInput(); m.Close() })
	return &rig{m: m, ed: ed, scr: scr, dir: dir}
}

type answer struct {
	c   []ide.Content
	err error
}

func (r *rig) openDiff(id ide.ClientID, path, tab, text string) <-chan answer {
	ch := make(chan answer, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		c, err := r.m.OpenDiff(ctx, id, ide.OpenDiffArgs{OldFilePath: path, NewFilePath: path, TabName: tab, NewFileContents: ide.TextOf(text)})
		ch <- answer{c, err}
	}()
	return ch
}

func texts(a answer) string {
	var s []string
	for _, c := range a.c {
		s = append(s, c.Text+c.File.String()) // an accepted text is the block's File
	}
	return strings.Join(s, "|")
}

func recvAnswer(t *testing.T, ch <-chan answer) answer {
	t.Helper()
	return testbin.Recv(t, ch, "openDiff never answered")
}

// Issue 15 item 1: a proposal's control characters are shown, not acted on. The line
// `evil();\r\x1b[2K+# formatting only` showed only `+# formatting only`.
func TestReviewerEscapesProposal(t *testing.T) {
	r := newRig(t)
	path := filepath.Join(r.dir, "a\x1b]0;pwned\x07.go")
	os.WriteFile(path, []byte("old\n"), 0o600)
	attacks := "evil();\r\x1b[2K+# formatting only\n\x1b[8mhidden\n\x1b]52;c;ZXZpbA==\x07\nabc\u202egnp\n"
	ans := r.openDiff(1, path, "T", attacks)
	r.scr.waitFor(t, "Accept this change?", 1)
	out := r.scr.String()
	for _, bad := range []string{"\r", "\x1b", "\x07", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Errorf("tscreen holds raw %q:\n%q", bad, out)
		}
	}
	for _, want := range []string{`+evil();\r\x1b[2K+# formatting only`, `\x1b[8mhidden`, `\x1b]52;c;ZXZpbA==\x07`, `abc\u202egnp`, `a\x1b]0;pwned\x07.go`} {
		if !strings.Contains(out, want) {
			t.Errorf("tscreen does not show %q:\n%s", want, out)
		}
	}
	io.WriteString(r.typing, "n\n")
	if a := recvAnswer(t, ans); !strings.HasPrefix(texts(a), "DIFF_REJECTED") {
		t.Fatalf("answer %q %v", texts(a), a.err)
	}
	// openFile's path too: a newline in it would fake the bridge's own output.
	r.ed.OpenFile(context.Background(), ide.OpenFileParams{FilePath: "/x\nClaude opened /etc/passwd"})
	if out := r.scr.String(); strings.Contains(out, "\nClaude opened /etc/passwd") || !strings.Contains(out, `/x\nClaude opened /etc/passwd`) {
		t.Fatalf("openFile path not escaped:\n%q", out)
	}
}

// Issue 15 item 4: client B reusing A's tab name while A's proposal is on tscreen replaced A's
// diff (the spec's rule, kept), but the tscreen still showed A and `y` answered B with A's text.
// Now A's prompt is withdrawn with a message, B's proposal is shown, and `y` answers B with B's.
func TestReviewerAnswersTheProposalShown(t *testing.T) {
	r := newRig(t)
	path := filepath.Join(r.dir, "f.go")
	os.WriteFile(path, []byte("package f\n"), 0o600)
	ansA := r.openDiff(1, path, "same", "package f // from A\n")
	r.scr.waitFor(t, "from A", 1)
	r.scr.waitFor(t, "Accept this change?", 1)
	ansB := r.openDiff(2, path, "same", "package f // from B\n")
	if a := recvAnswer(t, ansA); !strings.HasPrefix(texts(a), "DIFF_REJECTED") {
		t.Fatalf("A answered %q %v", texts(a), a.err)
	}
	r.scr.waitFor(t, "withdrawn: Claude replaced this proposal", 1)
	r.scr.waitFor(t, "from B", 1)
	r.scr.waitFor(t, "Accept this change?", 2)
	io.WriteString(r.typing, "y\n")
	a := recvAnswer(t, ansB)
	if got := texts(a); got != "FILE_SAVED|package f // from B\n" {
		t.Fatalf("B answered %q (err %v), want its own text", got, a.err)
	}
}

// A line typed right before a replacement is displayed is not taken as the new one's answer.
func TestReviewerIgnoresTypeAheadAfterReplace(t *testing.T) {
	r := newRig(t)
	r.ed.guard = time.Hour // every line after a replacement counts as typed ahead
	path := filepath.Join(r.dir, "g.go")
	ansA := r.openDiff(1, path, "same", "A\n")
	r.scr.waitFor(t, "Accept this change?", 1)
	ansB := r.openDiff(2, path, "same", "B\n")
	recvAnswer(t, ansA)
	r.scr.waitFor(t, "Accept this change?", 2)
	io.WriteString(r.typing, "y\n")
	r.scr.waitFor(t, "answer again", 1)
	select {
	case a := <-ansB:
		t.Fatalf("B answered by a line typed ahead: %q", texts(a))
	default:
	}
	r.m.CloseTab(2, "same") // B's own Claude closes it: settled as rejected
	recvAnswer(t, ansB)
}

// A same-name proposal queued behind another replaces the queued one: it is shown once.
func TestReviewerQueuedReplace(t *testing.T) {
	r := newRig(t)
	p1, p2 := filepath.Join(r.dir, "one"), filepath.Join(r.dir, "two")
	ans1 := r.openDiff(1, p1, "first", "first\n")
	r.scr.waitFor(t, "Accept this change?", 1)
	ansQ := r.openDiff(1, p2, "q", "queued A\n")
	waitDiffs(t, r.m, 2)
	ansR := r.openDiff(2, p2, "q", "queued B\n")
	recvAnswer(t, ansQ)
	io.WriteString(r.typing, "n\n")
	recvAnswer(t, ans1)
	r.scr.waitFor(t, "queued B", 1)
	r.scr.waitFor(t, "Accept this change?", 2)
	io.WriteString(r.typing, "y\n")
	if a := recvAnswer(t, ansR); texts(a) != "FILE_SAVED|queued B\n" {
		t.Fatalf("got %q", texts(a))
	}
	if strings.Contains(r.scr.String(), "queued A") {
		t.Fatal("the replaced queued proposal was shown")
	}
}

// gatedEditor is the terminal Editor with the showing of one proposal held until the test
// releases it: the window between ide.Model settling a replaced call and sending the editor its
// replacement, which load opens at random (TestReviewerQueuedReplace was flaky in CI), is held
// open on purpose.
type gatedEditor struct {
	*Editor
	hold    string        // proposals with this text wait for release
	release chan struct{} // closed by the test
}

func (g *gatedEditor) ShowDiff(ctx context.Context, p ide.ShowDiffParams) error {
	if p.NewContents.String() == g.hold {
		select {
		case <-g.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return g.Editor.ShowDiff(ctx, p)
}

// A queued proposal that a same-name openDiff replaced is already answered (DIFF_REJECTED)
// before its replacement reaches the reviewer; reaching it in the queue then, the reviewer skips
// it instead of displaying a proposal whose answer no longer counts.
func TestReviewerSkipsSettledQueued(t *testing.T) {
	in, typing := io.Pipe()
	scr := &tscreen{}
	ed := New(in, scr, Ask, false)
	ed.guard = 0
	g := &gatedEditor{Editor: ed, hold: "queued B\n", release: make(chan struct{})}
	r := runRig(t, ed, g, scr, t.TempDir(), func() { typing.Close() })
	m, dir := r.m, r.dir
	released := false
	t.Cleanup(func() { // before the rig's: a held ShowDiff would keep the reviewer running
		if !released {
			close(g.release)
		}
	})

	p1, p2 := filepath.Join(dir, "one"), filepath.Join(dir, "two")
	ans1 := r.openDiff(1, p1, "first", "first\n")
	scr.waitFor(t, "Accept this change?", 1)
	ansQ := r.openDiff(1, p2, "q", "queued A\n")
	waitDiffs(t, m, 2)
	ansR := r.openDiff(2, p2, "q", "queued B\n") // held in gatedEditor.ShowDiff
	if a := recvAnswer(t, ansQ); !strings.HasPrefix(texts(a), "DIFF_REJECTED") {
		t.Fatalf("the replaced call answered %q (err %v)", texts(a), a.err)
	}
	io.WriteString(typing, "n\n")
	recvAnswer(t, ans1)
	// The reviewer has taken the queued proposal: it either displays it (the bug) or skips it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		ed.mu.Lock()
		idle := len(ed.queue) == 0 && ed.current == ""
		ed.mu.Unlock()
		if idle || strings.Contains(scr.String(), "queued A") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reviewer never took the queued proposal; it shows:\n%s", scr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if strings.Contains(scr.String(), "queued A") {
		t.Fatalf("the already answered proposal was displayed:\n%s", scr.String())
	}
	close(g.release)
	released = true
	scr.waitFor(t, "queued B", 1)
	scr.waitFor(t, "Accept this change?", 2)
	io.WriteString(typing, "y\n")
	if a := recvAnswer(t, ansR); texts(a) != "FILE_SAVED|queued B\n" {
		t.Fatalf("got %q (err %v)", texts(a), a.err)
	}
}

func waitDiffs(t *testing.T, m *ide.Model, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(m.Diffs()) != n {
		if time.Now().After(deadline) {
			t.Fatalf("diffs %v, want %d", m.Diffs(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Issue 39 item 6: "`auto: accepted` before the line it answers": --auto answers at once, and
// what the answer causes (a state line, the turn's summary) is printed after the diff and its
// answer, never before or inside them.
func TestAutoPrintsInOrder(t *testing.T) {
	in, typing := io.Pipe()
	scr := &tscreen{}
	ed := New(in, scr, Accept, false)
	r := runRig(t, ed, ed, scr, t.TempDir(), func() { typing.Close() })
	dir := r.dir
	proposal := strings.Repeat("a line of the proposal\n", 200)
	path := filepath.Join(dir, "a.txt")
	for i := range 3 {
		if a := recvAnswer(t, r.openDiff(1, path, "T"+string(rune('0'+i)), proposal)); !strings.HasPrefix(texts(a), "FILE_SAVED") {
			t.Fatalf("answered %q", texts(a))
		}
		ed.Notice("Claude is working " + string(rune('0'+i)))
		r.m.CloseTab(1, "T"+string(rune('0'+i)))
	}
	scr.waitFor(t, "Claude is working 2", 1)
	out := scr.String()
	for i := range 3 {
		n := string(rune('0' + i))
		notice := strings.Index(out, "Claude is working "+n)
		answered := strings.Index(out, "auto: accepted")
		if answered < 0 || notice < answered {
			t.Fatalf("proposal %s: its notice came before its answer was printed:\n%s", n, out)
		}
		out = out[notice+len("Claude is working "+n):]
	}
}
