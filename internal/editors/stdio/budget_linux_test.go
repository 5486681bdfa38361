//go:build linux

package stdio_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// rawEditor is the editor end of `serve --stdio` (newline framing) that never decodes a whole
// message: it keeps the first 64 KiB of each line, enough for the envelope, the tab name and the
// proposal number of a 14 MiB showDiff (they come before newContents), and answers every
// request {}.
type rawEditor struct {
	in    *os.File
	mu    sync.Mutex
	lines chan []byte // the first 64 KiB of each line
	// slow: requests of these methods are answered after this long, as an editor opening a
	// file or asking its language server takes a while (their answers then overlap).
	slow   map[string]time.Duration
	answer map[string]string // the result of a method's request; {} for the others
}

func (e *rawEditor) write(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.in.Write([]byte(s + "\n"))
}

var (
	reID       = regexp.MustCompile(`^\{"jsonrpc":"2\.0","id":(\d+),"method":"([a-zA-Z]+)"`)
	reTab      = regexp.MustCompile(`"tabName":"([^"]*)"`)
	reProposal = regexp.MustCompile(`"proposal":(\d+)`)
)

func (e *rawEditor) read(r *bufio.Reader) {
	defer close(e.lines)
	for {
		var head []byte
		for {
			chunk, err := r.ReadSlice('\n')
			if len(head) < 64<<10 {
				head = append(head, chunk[:min(len(chunk), 64<<10-len(head))]...)
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return
			}
			break
		}
		if m := reID.FindSubmatch(head); m != nil { // a request: answered {} at once
			result := e.answer[string(m[2])]
			if result == "" {
				result = "{}"
			}
			msg := `{"jsonrpc":"2.0","id":` + string(m[1]) + `,"result":` + result + `}`
			if d := e.slow[string(m[2])]; d > 0 {
				time.AfterFunc(d, func() { e.write(msg) })
			} else {
				e.write(msg)
			}
		}
		e.lines <- head
	}
}

// startLimited starts `serve --stdio` in ws under `prlimit --as=3G` with e as its editor, which
// declares caps, and returns the editor, the initialize result and the bridge's exit.
func startLimited(t *testing.T, ws string, caps map[string]bool, e *rawEditor) (*rawEditor, initResult, chan error) {
	t.Helper()
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("no prlimit")
	}
	if testbin.Race {
		// The bridge runs plain either way; the race detector makes these tests' own GiBs of
		// JSON, files and WebSocket masking take minutes. scripts/test runs them without -race.
		t.Skip("run without -race (scripts/test does)")
	}
	tmp := t.TempDir()
	cmd := exec.Command("prlimit", fmt.Sprintf("--as=%d", 3<<30), "--", testbin.Plain(t, bin), "serve", "--stdio")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+filepath.Join(tmp, "config"), "HOME="+tmp,
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "xdg"))
	var stderr testbin.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	e.in, e.lines = in.(*os.File), make(chan []byte, 4096)
	go e.read(bufio.NewReaderSize(out, 64<<10))
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		in.Close()
		testbin.Reap(cmd, exited)
		if t.Failed() {
			t.Logf("bridge stderr:\n%s", stderr.String())
		}
	})
	init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"name": "Raw", "pid": os.Getpid(), "workspaceFolders": []string{ws}, "capabilities": caps}})
	e.write(string(init))
	var r initResult
	for l := range e.lines {
		var m struct{ Result initResult }
		if bytes.Contains(l, []byte(`"lockPath"`)) && json.Unmarshal(l, &m) == nil {
			r = m.Result
			break
		}
	}
	if r.Port == 0 {
		t.Fatalf("no initialize answer: %v", <-exited)
	}
	return e, r, exited
}

// Issue 25 item 5: ~100 unsettled 15 MiB proposals took the bridge to ~1.8 GiB and killed it
// under a 3 GiB address-space limit. With the one memory budget (512 MiB, internal/membudget),
// the bridge under `prlimit --as` holds the proposals that fit, refuses the others with a
// clear error (the CLI then asks in the terminal), stays up, and loses nothing it holds: an
// accept of the first proposal still answers FILE_SAVED with its whole text.
func TestProposalsWithinMemoryBudget(t *testing.T) {
	t.Parallel()
	const (
		n    = 100
		size = 14 << 20 // under MaxDiffText (15 MiB), as the CLI's biggest
	)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	path := filepath.Join(ws, "big.txt")
	os.WriteFile(path, []byte("old\n"), 0o644)
	e, r, exited := startLimited(t, ws, allCaps(), &rawEditor{})
	c := claude(t, r)

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	text := strings.Repeat("0123456789abcdef", size/16)
	encoded, _ := json.Marshal(text)
	results := make(chan *probe.ToolResult, n+1)
	open := func(tab string) { results <- openDiffResult(ctx, c, path, json.RawMessage(encoded), tab) }
	// nextShown waits for the next showDiff and returns its tab and number, or the tool result
	// that came first.
	nextShown := func() (string, uint64, *probe.ToolResult) {
		for {
			select {
			case l, ok := <-e.lines:
				if !ok {
					t.Fatalf("the bridge's stdout closed: %v", <-exited)
				}
				if m := reID.FindSubmatch(l); m != nil && string(m[2]) == "showDiff" {
					tab, num := reTab.FindSubmatch(l), reProposal.FindSubmatch(l)
					if tab == nil || num == nil {
						t.Fatalf("showDiff without tabName or proposal: %.300q", l)
					}
					p, _ := strconv.ParseUint(string(num[1]), 10, 64)
					return string(tab[1]), p, nil
				}
			case res := <-results:
				return "", 0, res
			case <-ctx.Done():
				t.Fatal("no showDiff and no answer")
			}
		}
	}
	shown, first := 0, uint64(0)
	var refused []string
	for i := range n {
		tab := fmt.Sprintf("tab-%d", i)
		go open(tab)
		// One at a time: the proposal is shown, or refused.
		got, num, res := nextShown()
		if res != nil {
			if !res.IsError || len(res.Texts()) != 1 || !strings.Contains(res.Texts()[0], "memory budget") {
				t.Fatalf("openDiff %d answered %.300q, want a refusal naming the memory budget", i, res.Texts())
			}
			refused = append(refused, res.Texts()[0])
			continue
		}
		if got != tab {
			t.Fatalf("showDiff %q, want %q", got, tab)
		}
		if i == 0 {
			first = num
		}
		shown++
	}
	if shown < 30 || len(refused) == 0 {
		t.Fatalf("%d shown, %d refused; want the 512 MiB budget's ~34 shown and the rest refused", shown, len(refused))
	}
	t.Logf("%d proposals shown, %d refused: %s", shown, len(refused), refused[0])
	// Nothing held is lost: the first proposal is accepted unedited, with its whole text.
	e.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"diffAccepted","params":{"tabName":"tab-0","proposal":%d}}`, first))
	if res := <-results; res.IsError || len(res.Texts()) != 2 || res.Texts()[0] != "FILE_SAVED" || res.Texts()[1] != text {
		t.Fatalf("accepted openDiff: isError %v, %d texts", res.IsError, len(res.Texts()))
	}
	// Settling them gives the budget back: a new proposal is shown again.
	tool(t, c, "closeAllDiffTabs", nil)
	for range shown - 1 {
		<-results
	}
	go open("after")
	if got, _, res := nextShown(); res != nil || got != "after" {
		t.Fatalf("openDiff after closing all: %q %+v", got, res)
	}
	tool(t, c, "closeAllDiffTabs", nil)
	<-results
	select {
	case err := <-exited:
		t.Fatalf("the bridge exited: %v", err)
	default:
	}
}
