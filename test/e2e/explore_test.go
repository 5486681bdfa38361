package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

func TestExplorePlainText(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	api.Push(fakeapi.Text("PONG from the fake model"))
	start := time.Now()
	c := startCLI(t, api, cliOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c.WaitText(ctx, "? for shortcuts")
	t.Logf("prompt ready after %v", time.Since(start))
	c.Type("say pong")
	c.WaitText(ctx, "PONG from the fake model")
	t.Logf("answer after %v", time.Since(start))
	time.Sleep(3 * time.Second)
	for _, r := range api.Requests() {
		t.Logf("#%d %s %s main=%v len=%d max_tokens=%v stream=%v ntools=%d", r.Seq, r.Path, r.Query, r.Main, len(r.Raw), r.Body["max_tokens"], r.Body["stream"], len(r.Body["tools"].([]any)))
	}
	t.Logf("screen:\n%s", c.scr.Dump())
}
