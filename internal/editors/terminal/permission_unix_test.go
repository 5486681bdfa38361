//go:build unix

package terminal

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// A reason typed on a real terminal (a pty, raw mode) loses nothing: a paste of a long line
// with multi-byte characters comes whole, a character split between two reads is kept, an
// arrow's sequence and Backspace edit rather than type; a reason typed right after r counts.
func TestPermissionReasonOnATerminal(t *testing.T) {
	ptm, tty := openPty(t)
	t.Cleanup(func() { tty.Close(); ptm.Close() })
	scr := &tscreen{}
	ed := New(tty, scr, Ask, false)
	// Ctrl-D ends a key read still waiting (a blocked read on the tty outlives Close).
	r := runRig(t, ed, ed, scr, t.TempDir(), func() { ptm.WriteString("\x04") })
	go io.Copy(io.Discard, ptm) // the terminal's echo while cooked
	b := broker(r)

	ch := r.ask(t, b, context.Background(), `{"command":"make"}`)
	scr.waitFor(t, "Allow? [y]es", 1)
	ptm.WriteString("r")
	scr.waitFor(t, "reason (Enter sends): ", 1)
	long := strings.Repeat("x", 300)
	ptm.WriteString("naïve 日本語 " + long + " \xf0\x9f")
	time.Sleep(100 * time.Millisecond) // most likely a read of its own: the emoji's first half
	ptm.WriteString("\x99\x82 ab\x1b[Dzz\x7f\r")
	want := "naïve 日本語 " + long + " 🙂 abz"
	if p := recvPerm(t, ch); !p.ok || p.d.Behavior != "deny" || p.d.Message != want {
		t.Fatalf("the reason sent: %q, want %q", p.d.Message, want)
	}
	scr.waitFor(t, "denied: "+want, 1)

	ch = r.ask(t, b, context.Background(), `{"command":"make"}`)
	scr.waitFor(t, "Allow? [y]es", 2)
	ptm.WriteString("rwie gesagt: nein\r")
	if p := recvPerm(t, ch); !p.ok || p.d.Behavior != "deny" || p.d.Message != "wie gesagt: nein" {
		t.Fatalf("r and its reason in one read: %+v", p)
	}
}
