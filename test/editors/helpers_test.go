package editorstest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// need returns the path of an editor, or ends the test as harness.Missing says.
func need(t *testing.T, name string) string {
	t.Helper()
	return harness.Need(t, name, "the "+name+" binding of docs/editors.md")
}

// snippet returns the fenced block that follows <!-- test:NAME --> in docs/editors.md.
func snippet(t *testing.T, name string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "editors.md"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- test:" + regexp.QuoteMeta(name) + " -->\n```[a-z]*\n(.*?)\n```")
	m := re.FindSubmatch(doc)
	if m == nil {
		t.Fatalf("docs/editors.md has no <!-- test:%s --> block", name)
	}
	return string(m[1])
}

// world is a running `serve` for a workspace holding one file, a Claude session connected to
// it, and the environment an editor runs in (PATH starting with the bridge's directory, the
// private lock dir).
type world struct {
	ws, file string
	env      []string
	claude   *probe.Client
}

// fileName has a space and a quote: a binding that pastes it into a shell unquoted breaks.
const fileName = "it's a file.txt"

func newWorld(t *testing.T, name string) *world {
	t.Helper()
	home := t.TempDir()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	w := &world{ws: ws, file: filepath.Join(ws, name)}
	if err := os.WriteFile(w.file, []byte("one\ntwo\nthree\nfour\nfive\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, "config")
	w.env = append(os.Environ(), "HOME="+home, "CLAUDE_CONFIG_DIR="+cfg, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "GORACE=atexit_sleep_ms=0", "TERM=xterm-256color")
	var out testbin.Buffer
	cmd := exec.Command(bin, "serve", "--workspace", ws, "--auto", "reject")
	cmd.Env, cmd.Stdout, cmd.Stderr = w.env, &out, &out
	stdin, _ := cmd.StdinPipe()
	exited := testbin.Start(t, cmd)
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		stdin.Close()
		testbin.Reap(cmd, exited)
		if t.Failed() {
			t.Logf("serve output:\n%s", out.String())
		}
	})
	re := regexp.MustCompile(`CLAUDE_CODE_SSE_PORT="?(\d+)`)
	var port int
	for deadline := time.Now().Add(testbin.Bound); port == 0; time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			port, _ = strconv.Atoi(m[1])
		} else if time.Now().After(deadline) {
			t.Fatalf("serve never printed its port:\n%s", out.String())
		}
	}
	l := testbin.ReadLock(t, filepath.Join(cfg, "ide", strconv.Itoa(port)+".lock"))
	c, _, err := probe.Dial(testbin.Ctx(t), port, l.AuthToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Handshake(testbin.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	w.claude = c
	return w
}

// expect waits until Claude has been sent both an at_mentioned naming lines first..last
// (1-based) of the file and a selection_changed in the file holding text, in either order: a
// session is told nothing until it listens (mcp.Serve), then the latest selection comes first.
func (w *world) expect(t *testing.T, first, last int, text string) {
	t.Helper()
	wantMention := `{"filePath":` + quote(w.file) + `,"lineStart":` + strconv.Itoa(first-1) + `,"lineEnd":` + strconv.Itoa(last-1) + `}`
	mentioned, selected := false, false
	var seen []string
	ctx := testbin.Ctx(t)
	for !mentioned || !selected {
		select {
		case m := <-w.claude.Notifications:
			seen = append(seen, m.Method+" "+string(m.Params))
			switch m.Method {
			case "at_mentioned":
				mentioned = mentioned || string(m.Params) == wantMention
			case "selection_changed":
				var p struct {
					Text     string `json:"text"`
					FilePath string `json:"filePath"`
				}
				json.Unmarshal(m.Params, &p)
				selected = selected || (p.FilePath == w.file && p.Text == text)
			}
		case <-ctx.Done():
			t.Fatalf("want at_mentioned %s and a selection of %q; Claude was sent:\n%s", wantMention, text, strings.Join(seen, "\n"))
		}
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// run runs an editor to completion (bounded) in dir with the world's environment.
func (w *world) run(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(testbin.Ctx(t), name, args...)
	cmd.Dir, cmd.Env = w.ws, w.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
