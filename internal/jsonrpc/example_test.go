package jsonrpc_test

import (
	"context"
	"fmt"
	"io"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// Two peers over pipes: the editor side asks, the bridge side answers. Either side may call
// the other; here only one does.
func ExampleConn() {
	editorR, bridgeW := io.Pipe()
	bridgeR, editorW := io.Pipe()

	bridge := jsonrpc.NewConn(jsonrpc.NewDetectStream(bridgeR, bridgeW), func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var p struct {
			Name string `json:"name"`
		}
		if err := jsonrpc.UnmarshalParams(req.Params, &p); err != nil {
			return nil, err // -32602 naming the field
		}
		return map[string]string{"hello": p.Name}, nil
	})
	editor := jsonrpc.NewConn(jsonrpc.NewHeaderStream(editorR, editorW), nil)
	done := make(chan struct{}, 2)
	for _, c := range []*jsonrpc.Conn{bridge, editor} {
		go func() { c.Run(context.Background()); done <- struct{}{} }()
	}

	var res map[string]string
	err := editor.Call(context.Background(), "initialize", map[string]string{"name": "Neovim"}, &res)
	fmt.Println(res["hello"], err)
	err = editor.Call(context.Background(), "initialize", map[string]int{"name": 7}, nil)
	fmt.Println(err)

	editor.Close()
	bridge.Close()
	editorR.Close()
	bridgeR.Close()
	<-done
	<-done
	// Output:
	// Neovim <nil>
	// jsonrpc error -32602: invalid params: "name" must be a string, not number
}
