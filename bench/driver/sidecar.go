package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/child"
	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/lines"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/claudews"
)

// sidecar is one spawned IDE sidecar (the bridge's `serve --stdio` or the Node baseline). The
// driver is its editor: newline-delimited JSON-RPC on the child's stdin/stdout
// (docs/editor-protocol.md). It accepts every diff at once with the proposed text, untouched.
type sidecar struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	cfgDir  string
	Pid     int
	Port    int
	Token   string
	Lock    string
	Startup time.Duration // from exec to the initialize result (lock written, server listening)

	wmu     sync.Mutex // one writer on stdin
	mu      sync.Mutex
	nextID  int
	calls   map[string]chan []byte
	clients int           // the count in the latest clientConnected/clientDisconnected
	counted chan struct{} // signalled on every such notification
	done    chan struct{}
}

// initResult is the part of initialize's result the driver uses.
type initResult struct {
	Port     int    `json:"port"`
	LockPath string `json:"lockPath"`
}

// startSidecar runs argv with a private CLAUDE_CONFIG_DIR, sends initialize as its first bytes and
// waits (bounded) for the answer.
func startSidecar(argv []string, workspace string, stderr io.Writer) (*sidecar, error) {
	cfgDir, err := os.MkdirTemp("", "bench-cfg-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+cfgDir)
	cmd.Stderr = stderr
	in, out, err := child.Pipes(cmd)
	if err != nil {
		return nil, err
	}
	s := &sidecar{cmd: cmd, stdin: in, cfgDir: cfgDir, calls: map[string]chan []byte{}, counted: make(chan struct{}, 1), done: make(chan struct{})}
	init := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"name":"Bench","pid":` +
		strconv.Itoa(os.Getpid()) + `,"workspaceFolders":[` + strconv.Quote(workspace) +
		`],"positionEncoding":"utf-8","trackSelection":true,"capabilities":{"showDiff":true,"canCloseTabs":true}}}` + "\n")
	answer := make(chan []byte, 1)
	s.calls["0"] = answer

	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		os.RemoveAll(cfgDir)
		return nil, err
	}
	s.Pid = cmd.Process.Pid
	go s.read(bufio.NewReaderSize(out, 1<<20))
	if _, err := in.Write(init); err != nil {
		s.Close()
		return nil, err
	}
	var res []byte
	select {
	case res = <-answer:
	case <-s.done:
		s.Close()
		return nil, errors.New("sidecar exited before answering initialize")
	case <-time.After(10 * time.Second):
		s.Close()
		return nil, errors.New("no initialize answer within 10s")
	}
	s.Startup = time.Since(t0)
	var m struct {
		Result *initResult      `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(res, &m); err != nil || m.Result == nil {
		s.Close()
		return nil, fmt.Errorf("initialize failed: %s", res)
	}
	s.Port, s.Lock = m.Result.Port, m.Result.LockPath
	// The answer promises the lock exists; read the token from it as Claude would.
	data, err := os.ReadFile(s.Lock)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("lock file after initialize: %w", err)
	}
	var lock struct {
		AuthToken string `json:"authToken"`
	}
	if err := json.Unmarshal(data, &lock); err != nil || lock.AuthToken == "" {
		s.Close()
		return nil, fmt.Errorf("lock file %s: no authToken", s.Lock)
	}
	s.Token = lock.AuthToken
	return s, nil
}

func (s *sidecar) read(r *bufio.Reader) {
	defer close(s.done)
	lr := lines.NewReader(r)
	for {
		line, err := lr.Read()
		if err != nil {
			return
		}
		s.dispatch(line)
	}
}

func (s *sidecar) dispatch(msg []byte) {
	h := claudews.ParseHead(msg)
	switch {
	case h.Method == "" && h.ID != nil: // an answer
		s.mu.Lock()
		ch := s.calls[string(h.ID)]
		delete(s.calls, string(h.ID))
		s.mu.Unlock()
		if ch != nil {
			ch <- msg
		}
	case h.Method == "showDiff":
		s.write([]byte(`{"jsonrpc":"2.0","id":` + string(h.ID) + `,"result":{}}` + "\n"))
		// The user accepts at once, unchanged: the proposed text goes back as the final text.
		tab, ok1 := claudews.RawField(msg, "tabName")
		text, ok2 := claudews.RawField(msg, "newContents")
		n, ok3 := claudews.RawField(msg, "proposal") // every decision names its proposal
		if !ok1 || !ok2 || !ok3 {
			fmt.Fprintf(os.Stderr, "driver: showDiff without tabName/newContents/proposal\n")
			return
		}
		s.write([]byte(`{"jsonrpc":"2.0","id":"a`+s.id()+`","method":"diffAccepted","params":{"tabName":`), tab,
			[]byte(`,"proposal":`), n, []byte(`,"contents":`), text, []byte("}}\n"))
	case h.Method == "clientConnected" || h.Method == "clientDisconnected":
		var n struct {
			Params struct {
				Clients int `json:"clients"`
			} `json:"params"`
		}
		json.Unmarshal(msg, &n)
		s.mu.Lock()
		s.clients = n.Params.Clients
		s.mu.Unlock()
		select {
		case s.counted <- struct{}{}:
		default:
		}
	case h.ID != nil: // closeDiff and anything else: done
		s.write([]byte(`{"jsonrpc":"2.0","id":` + string(h.ID) + `,"result":{}}` + "\n"))
	}
}

func (s *sidecar) id() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return strconv.Itoa(s.nextID)
}

// write sends the parts as one message; net.Buffers avoids copying a big text into one slice.
func (s *sidecar) write(parts ...[]byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	b := net.Buffers(parts)
	_, err := b.WriteTo(s.stdin)
	return err
}

// waitClients waits until the sidecar told its editor that n clients are connected (so each
// finished its handshake and gets selections).
func (s *sidecar) waitClients(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		have := s.clients
		s.mu.Unlock()
		if have == n {
			return nil
		}
		select {
		case <-s.counted:
		case <-s.done:
			return errors.New("sidecar exited")
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d clients (have %d): %w", n, have, ctx.Err())
		}
	}
}

// notify sends an editor notification, pre-encoded (selectionChanged in the floods).
func (s *sidecar) send(line []byte) error { return s.write(line) }

// Close ends stdin (the protocol's shutdown) and waits up to 5 s for the exit, then kills.
func (s *sidecar) Close() error {
	s.stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		err = fmt.Errorf("pid %d did not exit within 5s of stdin EOF; killed", s.Pid)
		<-exited
	}
	os.RemoveAll(s.cfgDir)
	return err
}
