package bridge_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// Issue 35 item 7: a Claude connection renewed right after an accept (a restarted CLI, a
// keepalive drop) never sends that diff's close_tab, and the accepted proposal (up to 15 MiB)
// was held for the bridge's life. Once the file holds the accepted text, nothing is lost by
// letting it go: at the owner's disconnect, or at the next prompt (closeAllDiffTabs) when the
// CLI wrote the file after the bridge saw it leave.
func TestGoneClientsAcceptedDiffsReleased(t *testing.T) {
	b, ed, gone := startWatched(t)
	budget := membudget.New(1 << 30)
	b.Model.Budget = budget // before any openDiff: this test's own count
	path, _ := writeFile(t, b, "f.txt", "old\n")
	const rounds = 20
	for i := range rounds {
		a, _, err := probe.Dial(testbin.Ctx(t), b.Port(), b.Token(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Handshake(testbin.Ctx(t)); err != nil {
			t.Fatal(err)
		}
		tool(t, a, "closeAllDiffTabs", nil) // the prompt
		text := strings.Repeat(string(rune('a'+i%26)), 64<<10) + "\n"
		ans := openDiffAsync(testbin.Ctx(t), a, path, text, "T"+string(rune('A'+i)))
		shown := recv(t, ed.shown, "showDiff")
		if err := b.Model.Decide(shown.Seq, ide.Decision{Accept: true}); err != nil {
			t.Fatal(err)
		}
		if r := recv(t, ans, "openDiff answer"); r.err != nil || len(r.texts) != 2 || r.texts[0] != "FILE_SAVED" {
			t.Fatalf("round %d: %+v", i, r)
		}
		late := i%2 == 1 // the CLI writes after the bridge saw it leave
		if !late {
			os.WriteFile(path, []byte(text), 0o644) // as the CLI does with FILE_SAVED
		}
		a.Close() // gone before its close_tab
		recv(t, gone, "disconnect")
		if late {
			os.WriteFile(path, []byte(text), 0o644)
		}
	}
	// The next prompt of any Claude lets go of what the last round left.
	c := connect(t, b)
	wantText("CLOSED_0_DIFF_TABS")(t, tool(t, c, "closeAllDiffTabs", nil))
	if d := b.Model.Diffs(); len(d) != 0 {
		t.Errorf("%d diffs of gone clients still held, want 0: %+v", len(d), d[0])
	}
	if n := budget.Used(); n != 0 {
		t.Errorf("%d bytes of proposals still held, want 0", n)
	}
}

// slowShowEditor shows a diff (it reaches the screen) but answers showDiff only when the call
// ends: a Claude that leaves in that moment.
type slowShowEditor struct{ *testEditor }

func (e slowShowEditor) ShowDiff(ctx context.Context, p ide.ShowDiffParams) error {
	e.shown <- p
	<-ctx.Done()
	return ctx.Err()
}

// A Claude killed while the editor is putting its diff on screen: the showDiff call fails with
// the client's context, and the view must still be closed. On 59dbe19 the diff was forgotten
// without a closeDiff, and stayed on the editor's screen for good, an accept there refused
// (seen in the soak: probe --diff killed with SIGKILL, turn 823).
func TestDiffShownAsClientLeavesIsClosed(t *testing.T) {
	ed := slowShowEditor{newTestEditor()}
	b, _ := startWith(t, func(c *bridge.Config) { c.Editor = ed })
	path, mtime := writeFile(t, b, "f.txt", "old\n")
	a, _, err := probe.Dial(testbin.Ctx(t), b.Port(), b.Token(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Handshake(testbin.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	openDiffAsync(context.Background(), a, path, "new\n", "T")
	recv(t, ed.shown, "showDiff")
	a.WS.CloseNow()
	if tab := recv(t, ed.closed, "closeDiff of the diff on screen"); tab != "T" {
		t.Fatalf("closed %q, want T", tab)
	}
	if d := b.Model.Diffs(); len(d) != 0 {
		t.Fatalf("diffs %+v, want none", d)
	}
	untouched(t, path, "old\n", mtime)
}
