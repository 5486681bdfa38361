package stdio_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// rawChild is `claude-ide-bridge serve --stdio` driven with raw lines, so malformed input reaches
// it exactly as written and every byte it answers is seen.
type rawChild struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	exited chan struct{}
	stderr testbin.Buffer
}

// startRaw starts the binary with CLAUDE_CONFIG_DIR=cfgDir. Cleanup closes stdin and waits.
func startRaw(t *testing.T, cfgDir string, args ...string) *rawChild {
	t.Helper()
	c := &rawChild{lines: make(chan []byte, 256), exited: make(chan struct{})}
	c.cmd = exec.Command(bin, append([]string{"serve", "--stdio"}, args...)...)
	c.cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+cfgDir, "HOME="+t.TempDir(), "GORACE=atexit_sleep_ms=0")
	c.cmd.Stderr = &c.stderr
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.lines)
		br := bufio.NewReader(out)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				c.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		c.cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		c.stdin.Close()
		if !testbin.Reap(c.cmd, c.exited) {
			t.Error("the bridge did not exit after stdin closed")
		}
		for range c.lines {
		}
		if strings.Contains(c.stderr.String(), "DATA RACE") {
			t.Errorf("the bridge reported a data race:\n%s", c.stderr.String())
		}
	})
	return c
}

func (c *rawChild) send(t *testing.T, msg string) {
	t.Helper()
	if _, err := io.WriteString(c.stdin, msg+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (c *rawChild) read(t *testing.T) []byte {
	t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			t.Fatalf("the bridge closed stdout; stderr:\n%s", c.stderr.String())
		}
		return l
	case <-time.After(testbin.Bound):
		t.Fatalf("no answer within %v", testbin.Bound)
	}
	return nil
}

type initAnswer struct {
	Result struct {
		Port     int    `json:"port"`
		LockPath string `json:"lockPath"`
	} `json:"result"`
	Error *struct{ Code int } `json:"error"`
}

func (c *rawChild) initialize(t *testing.T, ws string, pid int) initAnswer {
	t.Helper()
	c.send(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"name":"Raw","pid":`+strconv.Itoa(pid)+
		`,"workspaceFolders":[`+strconv.Quote(ws)+`],"capabilities":{"showDiff":true}}}`)
	var a initAnswer
	if err := json.Unmarshal(c.read(t), &a); err != nil || a.Error != nil || a.Result.Port == 0 {
		t.Fatalf("initialize: %+v, %v", a, err)
	}
	return a
}

// stdioBadInput is one row of the editor-channel table in docs/security.md.
type stdioBadInput struct {
	name  string
	msg   string
	code  int // 0: a result; -1: no answer
	id    string
	names string
}

func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// Before initialize (editor-protocol.md: requests before initialize get -32002).
var stdioBeforeInit = []stdioBadInput{
	{"request before initialize", `{"jsonrpc":"2.0","id":1,"method":"status"}`, -32002, "1", ""},
	{"notification before initialize", `{"jsonrpc":"2.0","method":"selectionChanged","params":{}}`, -1, "", ""},
	{"initialize: name a number", `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"name":5}}`, -32602, "2", `"name"`},
	{"initialize: no name", `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}`, -32602, "3", `"name"`},
	{"initialize: positionEncoding utf-32", `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"name":"X","positionEncoding":"utf-32"}}`, -32602, "4", `"positionEncoding"`},
	{"initialize: capabilities an array", `{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"name":"X","capabilities":[]}}`, -32602, "5", `"capabilities"`},
	// Issue 25 item 7: the name becomes the lock's ideName, printed by the CLI and lock readers.
	{"initialize: name with ESC", `{"jsonrpc":"2.0","id":40,"method":"initialize","params":{"name":"Vim\u001b]0;pwned\u0007"}}`, -32602, "40", `"name"`},
	{"initialize: name with a newline", `{"jsonrpc":"2.0","id":41,"method":"initialize","params":{"name":"Vim\nFAKE"}}`, -32602, "41", `"name"`},
	{"initialize: name with a bidi override", `{"jsonrpc":"2.0","id":42,"method":"initialize","params":{"name":"Vim\u202e"}}`, -32602, "42", `"name"`},
	{"initialize: folder that does not exist", `{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"name":"X","workspaceFolders":["/no/such/dir"]}}`, -32000, "6", "/no/such/dir"},
}

// After initialize: JSON-RPC 2.0 §5.1 codes, and the editor methods' own checks.
var stdioAfterInit = []stdioBadInput{
	{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":`, -32700, "null", ""},
	{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\",\"params\":{\"x\":\"\xff\"}}", -32700, "1", ""}, // its id is read (issue 35 item 6)
	{"nesting 100000 deep", deep(100000), -32700, "null", ""},
	{"a number", `42`, -32600, "null", ""},
	{"batch array", `[{"jsonrpc":"2.0","id":1,"method":"status"}]`, -32600, "null", ""},
	{"id an object", `{"jsonrpc":"2.0","id":{},"method":"status"}`, -32600, "null", ""},
	{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":7,"method":"status"}`, -32600, "7", ""},
	{"unknown method", `{"jsonrpc":"2.0","id":8,"method":"no/such"}`, -32601, "8", "no/such"},
	{"unknown notification", `{"jsonrpc":"2.0","method":"no/such"}`, -1, "", ""},
	{"response to no call", `{"jsonrpc":"2.0","id":99,"result":{}}`, -1, "", ""},
	{"initialize twice", `{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"name":"X"}}`, -32002, "9", ""},
	{"diffAccepted without contents or proposal", `{"jsonrpc":"2.0","id":10,"method":"diffAccepted","params":{"tabName":"T"}}`, -32602, "10", `"proposal"`},
	{"diffAccepted contents without proposal", `{"jsonrpc":"2.0","id":30,"method":"diffAccepted","params":{"tabName":"T","contents":"x"}}`, -32602, "30", `"proposal"`},
	{"diffRejected without proposal", `{"jsonrpc":"2.0","id":31,"method":"diffRejected","params":{"tabName":"T"}}`, -32602, "31", `"proposal"`},
	{"diffAccepted contents a number", `{"jsonrpc":"2.0","id":11,"method":"diffAccepted","params":{"tabName":"T","proposal":1,"contents":1}}`, -32602, "11", `"contents"`},
	{"diffAccepted unknown proposal", `{"jsonrpc":"2.0","id":12,"method":"diffAccepted","params":{"tabName":"nope","proposal":1,"contents":""}}`, -32001, "12", "proposal 1 "},
	{"diffAccepted empty tab name", `{"jsonrpc":"2.0","id":13,"method":"diffAccepted","params":{"tabName":"","proposal":1,"contents":""}}`, -32001, "13", ""},
	{"diffRejected tabName a number", `{"jsonrpc":"2.0","id":14,"method":"diffRejected","params":{"tabName":3}}`, -32602, "14", `"tabName"`},
	{"selectionChanged request without filePath", `{"jsonrpc":"2.0","id":15,"method":"selectionChanged","params":{"text":"x"}}`, -32602, "15", `"filePath"`},
	{"selectionChanged line a string", `{"jsonrpc":"2.0","id":16,"method":"selectionChanged","params":{"filePath":"/a","selection":{"start":{"line":"1"}}}}`, -32602, "16", `line`},
	{"selectionChanged notification, bad params", `{"jsonrpc":"2.0","method":"selectionChanged","params":[1]}`, -1, "", ""},
	{"atMentioned lineStart after lineEnd", `{"jsonrpc":"2.0","id":17,"method":"atMentioned","params":{"filePath":"/a","lineStart":5,"lineEnd":2}}`, -32602, "17", `"lineStart"`},
	{"atMentioned only lineStart", `{"jsonrpc":"2.0","id":18,"method":"atMentioned","params":{"filePath":"/a","lineStart":5}}`, -32602, "18", `"lineEnd"`},
	{"atMentioned no filePath", `{"jsonrpc":"2.0","id":19,"method":"atMentioned","params":{}}`, -32602, "19", `"filePath"`},
	{"workspaceFoldersChanged folders a string", `{"jsonrpc":"2.0","id":20,"method":"workspaceFoldersChanged","params":{"folders":"/a"}}`, -32602, "20", `"folders"`},
	{"status params an array", `{"jsonrpc":"2.0","id":21,"method":"status","params":[]}`, 0, "21", ""},
	// Keys repeat nowhere (issue 15 item 8, issue 16 item 3); names match exactly, as editors
	// read them (vim.json, Nova's JS): one in the wrong case is an unknown member, ignored.
	{"duplicate method", `{"jsonrpc":"2.0","id":22,"method":"status","method":"closeAllDiffs"}`, -32600, "null", `duplicate key "method"`},
	{"Method beside method: method is read", `{"jsonrpc":"2.0","id":23,"method":"no/such","Method":"status"}`, -32601, "23", "no/such"},
	{"METHOD alone: no method", `{"jsonrpc":"2.0","id":29,"METHOD":"status"}`, -32600, "null", "response without result or error"},
	{"diffAccepted duplicate tabName", `{"jsonrpc":"2.0","id":24,"method":"diffAccepted","params":{"tabName":"A","contents":"x","tabName":"B"}}`, -32602, "24", `duplicate key "tabName"`},
	{"diffAccepted duplicate contents", `{"jsonrpc":"2.0","id":25,"method":"diffAccepted","params":{"tabName":"A","contents":"x","contents":"y"}}`, -32602, "25", `duplicate key "contents"`},
	{"diffAccepted Contents: no contents", `{"jsonrpc":"2.0","id":26,"method":"diffAccepted","params":{"tabName":"A","Contents":"x"}}`, -32602, "26", `"proposal"`},
	{"selectionChanged duplicate line deep", `{"jsonrpc":"2.0","id":27,"method":"selectionChanged","params":{"filePath":"/a","selection":{"start":{"line":1,"line":2}}}}`, -32602, "27", `duplicate key "line"`},
	{"selectionChanged START beside start: start is read", `{"jsonrpc":"2.0","id":28,"method":"selectionChanged","params":{"filePath":"/a","selection":{"start":{"line":"1"},"START":{"line":1}}}}`, -32602, "28", `selection.start.line`},
}

// TestStdioBadInput runs the editor-channel table against the real binary: every case gets the
// listed answer and the channel stays usable (a status request after each is answered).
func TestStdioBadInput(t *testing.T) {
	t.Parallel()
	c := startRaw(t, t.TempDir())
	run := func(cases []stdioBadInput) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) { checkStdio(t, c, tc) })
		}
	}
	run(stdioBeforeInit)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	c.initialize(t, ws, os.Getpid())
	run(stdioAfterInit)
	t.Logf("%d editor-channel cases", len(stdioBeforeInit)+len(stdioAfterInit))
}

func checkStdio(t *testing.T, c *rawChild, tc stdioBadInput) {
	t.Helper()
	c.send(t, tc.msg)
	c.send(t, `{"jsonrpc":"2.0","id":"after","method":"status"}`)
	type wire struct {
		ID    json.RawMessage
		Error *struct {
			Code    int
			Message string
		}
	}
	var bad []wire
	sawAfter := false
	for !sawAfter || (tc.code != -1 && len(bad) == 0) {
		var w wire
		raw := c.read(t)
		if err := json.Unmarshal(raw, &w); err != nil {
			t.Fatalf("bridge wrote non-JSON %q", raw)
		}
		if string(w.ID) == `"after"` {
			sawAfter = true
			continue
		}
		bad = append(bad, w)
	}
	if tc.code == -1 {
		if len(bad) != 0 {
			t.Fatalf("answered %s; want no answer", bad[0].ID)
		}
		return
	}
	if len(bad) != 1 {
		t.Fatalf("%d answers, want one", len(bad))
	}
	a := bad[0]
	switch {
	case string(a.ID) != tc.id:
		t.Errorf("answer id %s, want %s", a.ID, tc.id)
	case tc.code == 0 && a.Error != nil:
		t.Errorf("error %d %q, want a result", a.Error.Code, a.Error.Message)
	case tc.code != 0 && a.Error == nil:
		t.Errorf("a result, want error %d", tc.code)
	case tc.code != 0 && a.Error.Code != tc.code:
		t.Errorf("error %d %q, want %d", a.Error.Code, a.Error.Message, tc.code)
	case tc.names != "" && !strings.Contains(a.Error.Message, tc.names):
		t.Errorf("error %q does not name %s", a.Error.Message, tc.names)
	}
}
