//go:build unix

package terminal

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// Issue 28 item 9: "`y` needs Enter although the README reads as one key, and nothing confirms
// the answer." On a real terminal (a pty), one key answers, without Enter, the terminal is back
// in its usual mode after it, and the answer is confirmed on screen.
func TestOneKeyOnATerminal(t *testing.T) {
	ptm, tty := openPty(t)
	defer ptm.Close()
	defer tty.Close()
	scr := &tscreen{}
	ed := New(tty, scr, Ask, false)
	r := runRig(t, ed, ed, scr, t.TempDir(), func() {})
	dir := r.dir

	for i, c := range []struct{ key, answer, confirm string }{
		{"y", "FILE_SAVED", "accepted: Claude writes "},
		{"n", "DIFF_REJECTED", "rejected: "},
	} {
		path := filepath.Join(dir, "a.txt")
		os.WriteFile(path, []byte("old\n"), 0o600)
		ans := r.openDiff(1, path, "T"+c.key, "new\n")
		scr.waitFor(t, "Accept this change?", i+1)
		// A key that is not an answer says which are, and the prompt stays.
		if i == 0 {
			ptm.WriteString("x")
			scr.waitFor(t, "x: press y, n or e", 1)
		}
		ptm.WriteString(c.key) // no Enter
		if a := recvAnswer(t, ans); !strings.HasPrefix(texts(a), c.answer) {
			t.Fatalf("key %q answered %q %v, want %s", c.key, texts(a), a.err, c.answer)
		}
		scr.waitFor(t, c.confirm+path, 1)
	}
	// Between prompts the terminal is cooked again (echo and line editing for $EDITOR, the shell).
	st, err := termState(tty)
	if err != nil {
		t.Fatal(err)
	}
	if !st {
		t.Fatal("the terminal was left in raw mode after the answer")
	}
}

// Issue 39 item 1: "serve leaves the terminal in raw mode once a proposal is answered in Claude's
// terminal: it prints `(closed by Claude)` (also when the answer was No) and every later line
// starts where the last one ended". The reviewer writes to the pty itself here, so the screen is
// what the terminal shows: after a question closed by Claude the next line starts at column 0
// ("\n" goes out as "\r\n"), the message says what the answer in Claude's terminal did, and the
// key read left waiting answers the next question.
func TestClosedByClaudeGivesTheTerminalBack(t *testing.T) {
	r, ptm, tty := ptyRig(t)
	m, ed, scr, dir := r.m, r.ed, r.scr, r.dir
	path := filepath.Join(dir, "a.txt")
	os.WriteFile(path, []byte("old\n"), 0o600)

	// Answered No in Claude's terminal: the CLI sends close_tab and writes nothing.
	ans := r.openDiff(1, path, "T1", "new\n")
	scr.waitFor(t, "Accept this change?", 1)
	m.CloseTab(1, "T1")
	recvAnswer(t, ans)
	scr.waitFor(t, "closed by Claude", 1)
	ed.Notice("a later line")
	scr.waitFor(t, "a later line", 1)
	if st, err := termState(tty); err != nil || !st || !strings.Contains(scr.String(), "\r\na later line\r\n") {
		t.Fatalf("the terminal stayed raw after a question closed by Claude (cooked %v, %v):\n%q", st, err, scr.String())
	}
	scr.waitFor(t, "not accepted: rejected in Claude's terminal", 1)

	// Answered Yes there: Claude writes the proposal.
	ans = r.openDiff(1, path, "T2", "newer\n")
	scr.waitFor(t, "Accept this change?", 2)
	os.WriteFile(path, []byte("newer\n"), 0o600)
	m.CloseTab(1, "T2")
	recvAnswer(t, ans)
	scr.waitFor(t, "(accepted in Claude's terminal: Claude wrote "+path+")\r\n", 1)

	// The next question is answered by one key, as usual.
	ans = r.openDiff(1, path, "T3", "newest\n")
	scr.waitFor(t, "Accept this change?", 3)
	ptm.WriteString("y")
	if a := recvAnswer(t, ans); !strings.HasPrefix(texts(a), "FILE_SAVED") {
		t.Fatalf("y answered %q %v", texts(a), a.err)
	}
	scr.waitFor(t, "accepted: Claude writes "+path+"\r\n", 1)
	if st, err := termState(tty); err != nil || !st {
		t.Fatalf("the terminal stayed raw after an answer (cooked %v, %v)", st, err)
	}
}

// Issue 39 item 6: "serve's question is not the last line: a state line lands after `Accept this
// change?`, the key echo at column ~120". A notice that comes while a question waits for a key
// is printed above the question, each line from column 0, and the question is asked again: it
// stays the last line, and the key's echo follows it.
func TestNoticeGoesAboveTheQuestion(t *testing.T) {
	r, ptm, _ := ptyRig(t)
	ed, scr, dir := r.ed, r.scr, r.dir
	path := filepath.Join(dir, "a.txt")
	os.WriteFile(path, []byte("old\n"), 0o600)

	const question = "Accept this change? [y]es / [n]o / [e]dit, then accept: "
	ans := r.openDiff(1, path, "T", "new\n")
	scr.waitFor(t, question, 1)
	ed.Notice("Claude is waiting: permission for Edit")
	scr.waitFor(t, question, 2)
	out := scr.String()
	if want := "\r\x1b[KClaude is waiting: permission for Edit\r\n" + question; !strings.HasSuffix(out, want) {
		t.Fatalf("the notice did not go above the question, asked again; the screen ends:\n%q", out[max(0, len(out)-200):])
	}
	ptm.WriteString("y")
	recvAnswer(t, ans)
	scr.waitFor(t, question+"y\r\n", 1)
}

// openPty opens a pty, or skips the test where there is none.
func openPty(t *testing.T) (ptm, tty *os.File) {
	t.Helper()
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("SKIPPED: no pty here: %v", err)
	}
	return ptm, tty
}

// ptyRig runs a reviewer on a pty's terminal tty, its screen what the terminal shows (read off
// ptm).
func ptyRig(t *testing.T) (r *rig, ptm, tty *os.File) {
	t.Helper()
	ptm, tty = openPty(t)
	scr := &tscreen{}
	copied := make(chan struct{})
	go func() { io.Copy(scr, ptm); close(copied) }()
	t.Cleanup(func() { tty.Close(); ptm.Close(); <-copied })
	ed := New(tty, tty, Ask, false)
	// Ctrl-D ends a key read still waiting (a blocked read on the tty outlives Close).
	return runRig(t, ed, ed, scr, t.TempDir(), func() { ptm.WriteString("\x04") }), ptm, tty
}
