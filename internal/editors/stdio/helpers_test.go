package stdio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// framings are the two framings of the editor protocol; tests of the protocol run in both.
var framings = []string{"line", "header"}

func forBoth(t *testing.T, f func(t *testing.T, framing string)) {
	for _, fr := range framings {
		t.Run(fr, func(t *testing.T) {
			t.Parallel()
			f(t, fr)
		})
	}
}

// call is one request or notification the bridge sent to the editor.
type call struct {
	Method string
	Params json.RawMessage
}

// sidecar is a scripted editor with `claude-ide-bridge serve --stdio` as its child.
type sidecar struct {
	t       *testing.T
	framing string
	cmd     *exec.Cmd
	stdin   *os.File // the write end of the child's stdin
	stdoutR *os.File // the read end of the child's stdout
	conn    *jsonrpc.Conn
	cfgDir  string // CLAUDE_CONFIG_DIR of the child
	ws      string // the workspace folder

	out     testbin.Buffer // every byte the child wrote to stdout
	stderr  testbin.Buffer
	calls   chan call
	written chan []byte // every message the editor wrote, once written
	runDone chan struct{}
	exited  chan struct{}
	waitErr error

	mu      sync.Mutex
	answers map[string]func(ctx context.Context, params json.RawMessage) (any, error)
}

// startSidecar starts the bridge as a child with a private CLAUDE_CONFIG_DIR and speaks to it in
// framing. On cleanup it closes stdin, waits for the exit and checks stdout held only frames.
func startSidecar(t *testing.T, framing string, args ...string) *sidecar {
	t.Helper()
	return startSidecarEnv(t, nil, framing, args...)
}

// startSidecarEnv is startSidecar with env added to the child's environment (the test's own
// environment is never changed, so tests can run in parallel).
// trust runs `claude-ide-bridge trust` on the sidecar's workspace, in its environment.
func (s *sidecar) trust(t *testing.T) {
	t.Helper()
	cmd := exec.Command(bin, "trust", s.ws)
	cmd.Env = s.cmd.Env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("trust: %v %s", err, out)
	}
}

func startSidecarEnv(t *testing.T, env []string, framing string, args ...string) *sidecar {
	t.Helper()
	tmp := t.TempDir()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return startSidecarIn(t, tmp, ws, env, framing, args...)
}

// startSidecarIn is startSidecarEnv with the home (CLAUDE_CONFIG_DIR is home/config) and
// workspace given: a second editor of the same workspace (outlive_test.go).
func startSidecarIn(t *testing.T, tmp, ws string, env []string, framing string, args ...string) *sidecar {
	t.Helper()
	s := &sidecar{t: t, framing: framing, cfgDir: filepath.Join(tmp, "config"), ws: ws,
		calls: make(chan call, 1024), written: make(chan []byte, 1024), runDone: make(chan struct{}), exited: make(chan struct{}),
		answers: map[string]func(context.Context, json.RawMessage) (any, error){}}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--outlive") }) {
		// A test's Claude leaves as its cleanup closes stdin: the bridge outlives the editor
		// then only this long, not the default 30 s (outlive_test.go tests the rule itself).
		args = append(args, "--outlive", "200ms")
	}
	s.cmd = exec.Command(bin, append([]string{"serve", "--stdio"}, args...)...)
	s.cmd.Dir = ws
	s.cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+s.cfgDir, "HOME="+tmp,
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "xdg"), // the trust store: empty until s.trust
		"GORACE=atexit_sleep_ms=0")                   // a -race binary otherwise sleeps 1s before exiting
	s.cmd.Env = append(s.cmd.Env, env...)
	s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = inR, outW, &s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	s.stdin, s.stdoutR = inW, outR
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()
	r := io.TeeReader(outR, &s.out)
	var stream jsonrpc.Stream
	if framing == "header" {
		stream = jsonrpc.NewHeaderStream(r, tellWriter{inW, s.written})
	} else {
		stream = jsonrpc.NewLineStream(r, tellWriter{inW, s.written})
	}
	s.conn = jsonrpc.NewConn(stream, s.handle)
	s.conn.OnError = func(err error) { t.Errorf("bridge sent a bad message: %v", err) }
	go func() {
		defer close(s.runDone)
		s.conn.Run(context.Background())
		outR.Close()
	}()
	t.Cleanup(func() {
		s.stdin.Close()
		s.waitExit(t)
		<-s.runDone
		s.checkStdout(t)
		if strings.Contains(s.stderr.String(), "DATA RACE") {
			t.Errorf("the bridge reported a data race:\n%s", s.stderr.String())
		}
		if t.Failed() {
			t.Logf("bridge stderr:\n%s", s.stderr.String())
		}
	})
	return s
}

func (s *sidecar) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	select {
	case s.calls <- call{req.Method, req.Params}:
	default:
		s.t.Errorf("too many unread calls from the bridge; dropped %s", req.Method)
	}
	s.mu.Lock()
	f := s.answers[req.Method]
	s.mu.Unlock()
	if f != nil {
		return f(ctx, req.Params)
	}
	return map[string]any{}, nil
}

// answer makes the editor answer method with f (default: {}).
func (s *sidecar) answer(method string, f func(ctx context.Context, params json.RawMessage) (any, error)) {
	s.mu.Lock()
	s.answers[method] = f
	s.mu.Unlock()
}

// reply makes the editor answer method with a fixed JSON result.
func (s *sidecar) reply(method, result string) {
	s.answer(method, func(context.Context, json.RawMessage) (any, error) { return json.RawMessage(result), nil })
}

// next returns the next call of method from the bridge, skipping others.
func (s *sidecar) next(t *testing.T, method string) call {
	t.Helper()
	timeout := time.After(testbin.Bound)
	for {
		select {
		case c := <-s.calls:
			if c.Method == method {
				return c
			}
		case <-timeout:
			t.Fatalf("the editor never received %s", method)
		}
	}
}

// collect returns the next n calls whose method is one of methods, in arrival order.
func (s *sidecar) collect(t *testing.T, n int, methods ...string) []call {
	t.Helper()
	var out []call
	timeout := time.After(testbin.Bound)
	for len(out) < n {
		select {
		case c := <-s.calls:
			if slices.Contains(methods, c.Method) {
				out = append(out, c)
			}
		case <-timeout:
			t.Fatalf("the editor got %d of %d calls of %v", len(out), n, methods)
		}
	}
	return out
}

type status struct {
	Port     int    `json:"port"`
	LockPath string `json:"lockPath"`
	Clients  int    `json:"clients"`
	Diffs    []struct {
		TabName  string `json:"tabName"`
		FilePath string `json:"filePath"`
		State    string `json:"state"`
	} `json:"diffs"`
}

func (s *sidecar) status(t *testing.T) status {
	t.Helper()
	var st status
	if err := s.call(t, "status", map[string]any{}, &st); err != nil {
		t.Fatalf("status: %v", err)
	}
	return st
}

// noCall fails if the bridge sent method among the calls received so far.
func (s *sidecar) noCall(t *testing.T, methods ...string) {
	t.Helper()
	for {
		select {
		case c := <-s.calls:
			for _, m := range methods {
				if c.Method == m {
					t.Errorf("the bridge sent %s %s", c.Method, c.Params)
				}
			}
		default:
			return
		}
	}
}

func (s *sidecar) call(t *testing.T, method string, params, result any) error {
	t.Helper()
	return s.conn.Call(testbin.Ctx(t), method, params, result)
}

func (s *sidecar) notify(t *testing.T, method string, params any) {
	t.Helper()
	if err := s.conn.Notify(testbin.Ctx(t), method, params); err != nil {
		t.Fatal(err)
	}
}

type initResult struct {
	Port     int               `json:"port"`
	LockPath string            `json:"lockPath"`
	IDEName  string            `json:"ideName"`
	Version  string            `json:"version"`
	Env      map[string]string `json:"env"`
}

// allCaps declares every capability.
func allCaps() map[string]bool {
	return map[string]bool{"openFile": true, "showDiff": true, "canCloseTabs": true, "getOpenEditors": true,
		"getCurrentSelection": true, "checkDocumentDirty": true, "saveDocument": true, "getDiagnostics": true,
		"executeCode": true, "setBufferText": true}
}

// initParams is a full initialize for this test process as the editor; edit the map to vary it.
func (s *sidecar) initParams() map[string]any {
	return map[string]any{"name": "Scripted", "pid": os.Getpid(), "workspaceFolders": []string{s.ws},
		"positionEncoding": "utf-8", "trackSelection": true, "capabilities": allCaps()}
}

func (s *sidecar) initialize(t *testing.T, params map[string]any) initResult {
	t.Helper()
	if params == nil {
		params = s.initParams()
	}
	var r initResult
	if err := s.call(t, "initialize", params, &r); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return r
}

// initWith initializes with allCaps changed by caps.
func (s *sidecar) initWith(t *testing.T, caps map[string]bool) initResult {
	t.Helper()
	p := s.initParams()
	all := allCaps()
	maps.Copy(all, caps)
	p["capabilities"] = all
	return s.initialize(t, p)
}

// readLock reads a lock file.
var readLock = testbin.ReadLock

// claude connects a Claude-side client the way the CLI does: port and token from the lock.
func claude(t *testing.T, r initResult) *probe.Client {
	t.Helper()
	c := dial(t, r)
	if _, err := c.Handshake(testbin.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	return c
}

func dial(t *testing.T, r initResult) *probe.Client {
	t.Helper()
	l := readLock(t, r.LockPath)
	c, _, err := probe.Dial(testbin.Ctx(t), r.Port, l.AuthToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// tool calls a tool and fails the test on a protocol error.
var tool = testbin.Tool

// waitExit waits for the child to exit and returns how long that took from the call.
func (s *sidecar) waitExit(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	if !testbin.Reap(s.cmd, s.exited) {
		t.Errorf("the bridge did not exit")
	}
	return time.Since(start)
}

// exitCode is the child's exit status, after exited.
func (s *sidecar) exitCode() int {
	var ee *exec.ExitError
	if errors.As(s.waitErr, &ee) {
		return ee.ExitCode()
	}
	if s.waitErr != nil {
		return -1
	}
	return 0
}

// checkStdout re-reads everything the child wrote to stdout: it must be frames of the session's
// framing, each a valid JSON-RPC message, the first the answer to initialize. Spec (docs/editor-
// protocol.md): "Logs go to stderr, never stdout" and "Before answering initialize the bridge
// sends nothing."
func (s *sidecar) checkStdout(t *testing.T) {
	t.Helper()
	data := s.out.Bytes()
	var st jsonrpc.Stream
	if s.framing == "header" {
		st = jsonrpc.NewHeaderStream(bytes.NewReader(data), nopWriteCloser{})
	} else {
		st = jsonrpc.NewLineStream(bytes.NewReader(data), nopWriteCloser{})
	}
	for i := 0; ; i++ {
		frame, err := st.Read(context.Background())
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Errorf("stdout is not clean %s framing after %d frames: %v\n%q", s.framing, i, err, data)
			return
		}
		m, err := jsonrpc.Decode(frame)
		if err != nil {
			t.Errorf("stdout frame %d is not a JSON-RPC message: %v: %q", i, err, frame)
			continue
		}
		if i == 0 && (!m.IsResponse() || string(m.ID) != "1") {
			t.Errorf("the bridge's first message is not the answer to initialize: %s", frame)
		}
	}
}

// tellWriter reports each write after it happened.
type tellWriter struct {
	io.WriteCloser
	wrote chan []byte
}

func (w tellWriter) Write(p []byte) (int, error) {
	n, err := w.WriteCloser.Write(p)
	select {
	case w.wrote <- append([]byte(nil), p...):
	default:
	}
	return n, err
}

// settle waits until the editor has written an answer to one of the bridge's requests, then
// makes a round trip: the bridge reads in order, so after it the answer has been delivered.
func (s *sidecar) settle(t *testing.T) {
	t.Helper()
	timeout := time.After(testbin.Bound)
	for {
		select {
		case b := <-s.written:
			if bytes.Contains(b, []byte(`"result"`)) || bytes.Contains(b, []byte(`"error"`)) {
				s.status(t)
				return
			}
		case <-timeout:
			t.Fatal("the editor never answered")
		}
	}
}

type nopWriteCloser struct{}

func (nopWriteCloser) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriteCloser) Close() error                { return nil }

// rpcCode is the JSON-RPC error code of err, or 0.
func rpcCode(err error) int {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// writeFile creates a file in the workspace and returns its path.
func (s *sidecar) writeFile(t *testing.T, name, content string) string {
	t.Helper()
	return testbin.WriteFile(t, s.ws, name, content)
}

func itoa(n int) string { return strconv.Itoa(n) }

// textJSON decodes the JSON text of a tool result's first block.
func textJSON(t *testing.T, r *probe.ToolResult) map[string]any {
	t.Helper()
	if r.IsError || len(r.Content) == 0 {
		t.Fatalf("tool failed: %+v", r)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Content[0].Text), &m); err != nil {
		t.Fatalf("tool text is not a JSON object: %q", r.Content[0].Text)
	}
	return m
}
