// Command echo is the raw limit for bench/run: a loopback WebSocket server on the library the
// bridge uses (github.com/coder/websocket, same options: subprotocol "mcp", no compression) that
// sends every text message straight back. The driver times the same openDiff bytes through it
// that it times through the bridge, so the ratio shows what the bridge adds on top of moving
// the bytes. It prints its port on the first line of stdout and runs until stdin closes.
//
// With -relay each message also makes the trip a sidecar's does, without any parsing: out to a
// child process (cat) on a stdio pipe and back, as one line, before it is sent back. That is the
// floor for any sidecar that hands the text to an editor process and gets it back.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/lines"
	"github.com/coder/websocket"
)

func main() {
	relay := flag.Bool("relay", false, "send each message through a cat child process over stdio pipes before echoing it")
	flag.Parse()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "echo:", err)
		os.Exit(1)
	}
	var h http.Handler = http.HandlerFunc(echo(nil))
	if *relay {
		r, err := startRelay()
		if err != nil {
			fmt.Fprintln(os.Stderr, "echo:", err)
			os.Exit(1)
		}
		h = http.HandlerFunc(echo(r.trip))
	}
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	http.Serve(ln, h)
}

func echo(through func([]byte) ([]byte, error)) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
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
			if through != nil {
				if data, err = through(data); err != nil {
					fmt.Fprintln(os.Stderr, "echo: relay:", err)
					return
				}
			}
			if err := ws.Write(ctx, typ, data); err != nil {
				return
			}
		}
	}
}

// relay is a cat child process; its pipes are grown to 1 MiB as the bridge grows its own.
type relay struct {
	mu  sync.Mutex
	in  *os.File
	out *lines.Reader
}

func startRelay() (*relay, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	growPipe(inW)
	growPipe(outR)
	cmd := exec.Command("cat")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	inR.Close()
	outW.Close()
	return &relay{in: inW, out: lines.NewReader(bufio.NewReaderSize(outR, 1<<20))}, nil
}

// trip sends msg to cat as one line and reads it back; writing and reading overlap, as a
// sidecar's writer and its editor's reader do.
func (r *relay) trip(msg []byte) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	werr := make(chan error, 1)
	go func() {
		_, err := (&net.Buffers{msg, []byte{'\n'}}).WriteTo(r.in)
		werr <- err
	}()
	line, err := r.out.Read()
	if err != nil {
		return nil, err
	}
	if err := <-werr; err != nil {
		return nil, err
	}
	return line, nil
}
