//go:build unix

package terminal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
)

// Issue 28 item 9: "`y` needs Enter although the README reads as one key, and nothing confirms
// the answer." On a real terminal (a pty), one key answers, without Enter, the terminal is back
// in its usual mode after it, and the answer is confirmed on screen.
func TestOneKeyOnATerminal(t *testing.T) {
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("SKIPPED: no pty here: %v", err)
	}
	defer ptm.Close()
	defer tty.Close()
	scr := &tscreen{}
	ed := New(tty, scr, Ask, false)
	dir := t.TempDir()
	m := ide.New(ed, Info("Terminal"), []string{dir}, ide.Events{}, nil)
	ed.Bind(m)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { ed.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; ed.Close(); m.Close() })
	r := &rig{m: m, ed: ed, scr: scr, dir: dir}

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
