package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

// The harness itself: the real CLI, offline, in a pty, talks to the fake
// API and shows the scripted answer. No bridge.
func TestPlainTextTurn(t *testing.T) {
	t.Parallel()
	api := fakeapi.New()
	defer api.Close()
	api.Push(fakeapi.Text("PONG from the fake model"))
	start := time.Now()
	c := startCLI(t, api, cliOptions{})
	s := &session{t: t, ctx: t.Context(), API: api, CLI: c}
	c.WaitText(s.bound(connectBound), "? for shortcuts")
	t.Logf("prompt ready after %v", time.Since(start).Round(time.Millisecond))
	r := s.prompt("say pong")
	if !strings.Contains(r.LastUserText(), "say pong") {
		t.Errorf("the model was not sent the prompt:\n%s", r.LastUserText())
	}
	c.WaitText(s.bound(stepBound), "PONG from the fake model")
	t.Logf("answer on screen after %v", time.Since(start).Round(time.Millisecond))
}
