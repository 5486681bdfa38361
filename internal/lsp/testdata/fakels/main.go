// fakels is a broken language server for the fault tests of package lsp, the one case where no
// real server can be made to fail on cue. Its first argument is the fault:
//
//	hang        reads everything, answers nothing
//	crash-init  exits with status 3 on initialize
//	silent      answers initialize and shutdown, never publishes diagnostics
//	crash-once  answers initialize; on the first didOpen of its life where MARKER (second
//	            argument) does not exist it creates MARKER, writes an escape sequence to stderr
//	            and exits with status 2; otherwise publishes one diagnostic per didOpen/didChange
//	flood       on each didOpen publishes one diagnostic for each of N (second argument) files
//	            that do not exist, then one for the file opened
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	mode := os.Args[1]
	r := bufio.NewReader(os.Stdin)
	for {
		body, err := read(r)
		if err != nil {
			os.Exit(0)
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
				} `json:"textDocument"`
			} `json:"params"`
		}
		json.Unmarshal(body, &msg)
		if mode == "hang" {
			continue
		}
		switch msg.Method {
		case "initialize":
			if mode == "crash-init" {
				os.Exit(3)
			}
			write(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"capabilities": map[string]any{"textDocumentSync": 1}}})
		case "shutdown":
			write(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": nil})
		case "exit":
			os.Exit(0)
		case "textDocument/didOpen", "textDocument/didChange":
			if mode == "flood" {
				n, _ := strconv.Atoi(os.Args[2])
				w := bufio.NewWriterSize(os.Stdout, 1<<20)
				for i := range n {
					b := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///flood/f%d.go","diagnostics":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"severity":1,"message":"flood"}]}}`, i)
					fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(b), b)
				}
				w.Flush()
				publish(msg.Params.TextDocument.URI, msg.Params.TextDocument.Version)
				continue
			}
			if mode != "crash-once" {
				continue
			}
			if _, err := os.Stat(os.Args[2]); err != nil {
				os.WriteFile(os.Args[2], nil, 0o644)
				fmt.Fprintf(os.Stderr, "\x1b[31mfatal\x1b[0m: crashing on purpose\n")
				os.Exit(2)
			}
			publish(msg.Params.TextDocument.URI, msg.Params.TextDocument.Version)
		default:
			if msg.ID != nil {
				write(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "not found"}})
			}
		}
	}
}

func publish(uri string, version int) {
	write(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": map[string]any{
		"uri": uri, "version": version,
		"diagnostics": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 1}}, "severity": 2, "message": "fake warning"}},
	}})
}

func read(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return body, err
}

func write(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(os.Stdout, "Content-Length: %d\r\n\r\n%s", len(b), b)
}
