package stdio_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// Issue 35 item 6: a request whose params hold a lone surrogate escape ("\ud800") or bytes that
// are not UTF-8 is JSON in every way but its text. It was answered with id null (the id was not
// read), which no editor can match, so the editor waited for its own timeout. It gets a parse
// error with its own id, and the bridge goes on answering.
func TestBadTextInParamsAnswered(t *testing.T) {
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		s.initialize(t, nil)
		for _, contents := range []string{`"a\ud800b"`, `"\udc00"`, "\"a\xffb\""} {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := s.conn.Call(ctx, "diffAccepted", json.RawMessage(`{"tabName":"t","proposal":1,"contents":`+contents+`}`), nil)
			cancel()
			if rpcCode(err) != jsonrpc.CodeParseError || !strings.Contains(err.Error(), "/params/contents") {
				t.Fatalf("diffAccepted with contents %q: %v, want a -32700 answer naming /params/contents", contents, err)
			}
		}
		s.call(t, "status", nil, nil) // still answering
	})
}
