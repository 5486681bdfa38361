package jsonrpc_test

import (
	"context"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// A Then result is answered first, then its After runs: a message After sends reaches the peer
// after the answer (the bridge sends an attaching editor nothing before its initialize answer),
// and an error answer runs no After.
func TestThenRunsAfterTheAnswer(t *testing.T) {
	var c *jsonrpc.Conn
	c, send, recv := rawPeer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "fail" {
			return jsonrpc.Then{Result: 1, After: func() { c.Notify(context.Background(), "wrong", nil) }}, jsonrpc.Errorf(jsonrpc.CodeServerError, "no")
		}
		return jsonrpc.Then{Result: "r", After: func() { c.Notify(context.Background(), "after", nil) }}, nil
	})
	send(`{"jsonrpc":"2.0","id":1,"method":"fail"}`)
	if got := recv(); got != `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"no"}}` {
		t.Errorf("first: %s", got)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"x"}`)
	if got := recv(); got != `{"jsonrpc":"2.0","id":2,"result":"r"}` {
		t.Errorf("first after the call: %s, want the answer", got)
	}
	if got := recv(); got != `{"jsonrpc":"2.0","method":"after","params":{}}` {
		t.Errorf("then: %s, want After's notification (and none from the failed call)", got)
	}
}
