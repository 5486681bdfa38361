//go:build linux

package soak

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/child"
)

// editor is a scripted editor on one `serve --stdio` process (docs/editor-protocol.md): the
// bridge itself for the first, a relay to the running bridge's attach socket for the next ones.
// It answers every request of the bridge, hands showDiff and closeDiff to the turn, and records
// setBufferText.
type editor struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	init  initResult

	wmu    sync.Mutex
	mu     sync.Mutex
	nextID int
	calls  map[string]chan reply
	buffer map[string]string // setBufferText, by path

	shown  chan showDiff
	closed chan string // closeDiff tab names
	done   chan struct{}
}

type initResult struct {
	Port     int    `json:"port"`
	LockPath string `json:"lockPath"`
	Attached bool   `json:"attached"`
}

type showDiff struct {
	TabName  string `json:"tabName"`
	FilePath string `json:"filePath"`
	Proposal uint64 `json:"proposal"`
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// startEditor runs `bin serve --stdio` in env and sends initialize for workspace.
func startEditor(bin, workspace string, env []string, stderr io.Writer) (*editor, error) {
	cmd := exec.Command(bin, "serve", "--stdio")
	cmd.Env, cmd.Stderr, cmd.Dir = env, stderr, workspace
	in, out, err := child.Pipes(cmd)
	if err != nil {
		return nil, err
	}
	e := &editor{cmd: cmd, stdin: in, calls: map[string]chan reply{}, buffer: map[string]string{},
		shown: make(chan showDiff, 16), closed: make(chan string, 64), done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go e.read(out)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = e.call(ctx, "initialize", map[string]any{
		"name": "Soak", "pid": os.Getpid(), "workspaceFolders": []string{workspace},
		"positionEncoding": "utf-8", "trackSelection": true,
		"capabilities": map[string]any{"openFile": true, "showDiff": true, "canCloseTabs": true,
			"getDiagnostics": true, "setBufferText": true, "checkDocumentDirty": true, "saveDocument": true,
			"getOpenEditors": true},
	}, &e.init)
	if err != nil {
		e.kill()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return e, nil
}

func (e *editor) read(out io.Reader) {
	defer close(e.done)
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 1 {
			e.dispatch(line)
		}
		if err != nil {
			return
		}
	}
}

func (e *editor) dispatch(line []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		reply
	}
	if json.Unmarshal(line, &m) != nil {
		return
	}
	if m.Method == "" {
		e.mu.Lock()
		ch := e.calls[string(m.ID)]
		delete(e.calls, string(m.ID))
		e.mu.Unlock()
		if ch != nil {
			ch <- m.reply
		}
		return
	}
	var result any = map[string]any{}
	switch m.Method {
	case "showDiff":
		var p showDiff
		json.Unmarshal(m.Params, &p)
		e.shown <- p
	case "closeDiff":
		var p struct {
			TabName string `json:"tabName"`
		}
		json.Unmarshal(m.Params, &p)
		select {
		case e.closed <- p.TabName:
		default:
		}
	case "setBufferText":
		var p struct {
			FilePath string `json:"filePath"`
			Text     string `json:"text"`
		}
		json.Unmarshal(m.Params, &p)
		e.mu.Lock()
		e.buffer[p.FilePath] = p.Text
		e.mu.Unlock()
	case "getDiagnostics":
		result = map[string]any{"files": []any{}}
	case "getOpenEditors":
		result = map[string]any{"editors": []any{}}
	case "checkDocumentDirty":
		result = map[string]any{"isOpen": false, "isDirty": false}
	case "saveDocument":
		result = map[string]any{"isOpen": false}
	case "openFile":
		result = map[string]any{"languageId": "text", "lineCount": 1}
	}
	if m.ID != nil {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		e.write(b)
	}
}

func (e *editor) write(b []byte) error {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	_, err := e.stdin.Write(append(b, '\n'))
	return err
}

// call makes a request and decodes its result into res (nil: ignored); a JSON-RPC error is an
// error.
func (e *editor) call(ctx context.Context, method string, params, res any) error {
	e.mu.Lock()
	e.nextID++
	id := strconv.Itoa(e.nextID)
	ch := make(chan reply, 1)
	e.calls[id] = ch
	e.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": e.nextIDNum(id), "method": method, "params": params})
	if err := e.write(b); err != nil {
		return err
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return fmt.Errorf("%s: %d %s", method, r.Error.Code, r.Error.Message)
		}
		if res != nil {
			return json.Unmarshal(r.Result, res)
		}
		return nil
	case <-e.done:
		return fmt.Errorf("%s: the editor's bridge process ended", method)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (e *editor) nextIDNum(id string) int { n, _ := strconv.Atoi(id); return n }

func (e *editor) notify(method string, params any) error {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	return e.write(b)
}

func (e *editor) bufferText(path string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t, ok := e.buffer[path]
	return t, ok
}

// leave closes the editor's side as an editor that quits does, and waits for its process
// (not for the bridge's own: it outlives its editor while a Claude is connected).
func (e *editor) leave(bridge bool) error {
	e.stdin.Close()
	if bridge {
		return nil
	}
	select {
	case <-e.done:
	case <-time.After(10 * time.Second):
		e.kill()
		return fmt.Errorf("the serve --stdio process %d did not end within 10s of its stdin closing", e.cmd.Process.Pid)
	}
	e.cmd.Wait()
	return nil
}

// kill ends the process with SIGKILL (the editor killed).
func (e *editor) kill() {
	e.cmd.Process.Kill()
	e.stdin.Close()
	<-e.done
	e.cmd.Wait()
}
