//go:build unix

package e2e

import (
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

// Issue 35 item 7 with the real CLI: the user accepts a diff while the CLI's connection is
// going (the CLI stopped, the bridge drops it at its keepalive), so its close_tab never comes
// over that connection. Once the CLI runs again, reconnects and the next prompt comes, the
// bridge must hold no diff whose text is in the file (59dbe19 held it, with its proposal, for
// its life), and the file holds the accepted text or the diff stays for the user.
func TestAcceptedDiffOfDroppedCLIReleased(t *testing.T) {
	waitsForKeepalive(t)
	s, f, d := helloDiff(t, "EDIT DONE")
	resume := s.pauseCLI()
	s.accept(d, "hello there\n")
	s.Ed.Wait(s.bound(30*time.Second), "clientDisconnected", nil)
	resume()
	s.Ed.Wait(s.bound(connectBound), "clientConnected", func(p map[string]any) bool { return p["clientId"] != float64(1) })
	s.CLI.WaitText(s.bound(stepBound), "EDIT DONE") // it got FILE_SAVED late, and wrote the file
	if got := readFile(t, f); got != "hello there\n" {
		t.Fatalf("file %q, want the accepted text", got)
	}
	// Its next prompt (closeAllDiffTabs over the new connection) lets go of the diff.
	s.API.Push(fakeapi.Text("SECOND TURN"))
	s.prompt("and now")
	held := func() []map[string]any {
		var st struct {
			Diffs []map[string]any `json:"diffs"`
		}
		if err := s.Ed.Call(s.bound(stepBound), "status", map[string]any{}, &st); err != nil {
			t.Fatal(err)
		}
		return st.Diffs
	}
	ctx := s.bound(stepBound)
	for len(held()) > 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("the accepted diff of the dropped connection is still held after the next prompt: %v", held())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
