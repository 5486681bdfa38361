package jsonrpc_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// runLatest reads in (all of it buffered at once, then EOF), with Latest naming "sel" when
// latest, and returns what the handler was given, in order, and what OnError was told.
func runLatest(t *testing.T, in string, latest bool) (handled []string, errs int) {
	t.Helper()
	var mu sync.Mutex
	c := jsonrpc.NewConn(jsonrpc.NewLineStream(strings.NewReader(in), nopCloser{io.Discard}), func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, fmt.Sprintf("%s%s", req.Method, req.Params))
		return nil, nil
	})
	if latest {
		c.Latest = func(method string) bool { return method == "sel" }
	}
	c.OnError = func(error) { errs++ }
	if err := c.Run(testbin.Ctx(t)); err != io.EOF {
		t.Fatalf("Run = %v", err)
	}
	return handled, errs
}

func note(method string, n int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":[%d]}`+"\n", method, n)
}

// A Latest notification read while the next message is already buffered is replaced by the next
// one of the same method, and handed over first when anything else comes next: in a flood only
// the last of a batch is handled, and none is lost that was not replaced.
func TestLatestKeepsTheLastOfABatch(t *testing.T) {
	in := note("sel", 1) + note("sel", 2) + note("sel", 3) + note("other", 4) + note("sel", 5) +
		"{not json\n" + note("sel", 6) + "\n  \n" + note("sel", 7) + note("sel", 8) + "\n\n"
	got, errs := runLatest(t, in, true)
	want := []string{"sel[3]", "other[4]", "sel[5]", "sel[8]"}
	if !slices.Equal(got, want) {
		t.Errorf("handled %q, want %q", got, want)
	}
	if errs != 1 {
		t.Errorf("OnError told %d times, want 1 (the bad line)", errs)
	}
}

// Without Latest every notification is handled.
func TestLatestUnset(t *testing.T) {
	if got, _ := runLatest(t, note("sel", 1)+note("sel", 2), false); !slices.Equal(got, []string{"sel[1]", "sel[2]"}) {
		t.Errorf("handled %q", got)
	}
}

// Only white space after a Latest notification is not a next message: it is handled at once,
// not held until the editor sends something else.
func TestLatestNotHeldForWhiteSpace(t *testing.T) { latestNotHeld(t, "\r\n \n") }

// A line of what is white space to Go but not to JSON ("\v") is a message, not a blank line to
// skip: Buffered and the reader judge it alike, so a selection before it is not held back
// waiting for a message that is not coming (the line itself is a parse error).
func TestLatestNotHeldForNonJSONSpace(t *testing.T) { latestNotHeld(t, "\v\n") }

// latestNotHeld writes a Latest notification and then after, and fails unless the notification
// is handled while the stream stays open.
func latestNotHeld(t *testing.T, after string) {
	t.Helper()
	r, w := io.Pipe()
	got := make(chan string, 4)
	c := jsonrpc.NewConn(jsonrpc.NewLineStream(r, nopCloser{io.Discard}), func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		got <- string(req.Params)
		return nil, nil
	})
	c.Latest = func(method string) bool { return method == "sel" }
	run(t, c, r)
	go w.Write([]byte(note("sel", 1) + after))
	select {
	case p := <-got:
		if p != "[1]" {
			t.Errorf("handled %s", p)
		}
	case <-testbin.Ctx(t).Done():
		t.Fatal("the selection was held back")
	}
}
