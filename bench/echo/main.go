// Command echo is the raw limit for bench/run: a loopback WebSocket server on the library the
// bridge uses (github.com/coder/websocket, same options: subprotocol "mcp", no compression) that
// sends every text message straight back. The driver times the same openDiff bytes through it
// that it times through the bridge, so the ratio shows what the bridge adds on top of moving
// the bytes. It prints its port on the first line of stdout and runs until stdin closes.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/coder/websocket"
)

func main() {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "echo:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	http.Serve(ln, http.HandlerFunc(echo))
}

func echo(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols:    []string{"mcp"},
		CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		return
	}
	defer ws.CloseNow()
	ws.SetReadLimit(256 << 20)
	ctx := r.Context()
	for {
		typ, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		if err := ws.Write(ctx, typ, data); err != nil {
			return
		}
	}
}
