package vimtest

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const tabA = "✻ [Claude Code] a.txt (aa7495) ⧉"

type toolAnswer struct {
	r   *probe.ToolResult
	err error
}

// openDiff calls Claude's openDiff; the answer comes when the user decides.
func openDiff(t *testing.T, c *probe.Client, path, contents, tab string) chan toolAnswer {
	ch := make(chan toolAnswer, 1)
	ctx := testbin.Ctx(t)
	go func() {
		r, err := c.Tool(ctx, "openDiff", map[string]any{
			"old_file_path": path, "new_file_path": path, "new_file_contents": contents, "tab_name": tab,
		})
		ch <- toolAnswer{r, err}
	}()
	return ch
}

func wantTexts(t *testing.T, ch chan toolAnswer, want ...string) {
	t.Helper()
	a := <-ch
	if a.err != nil {
		t.Fatalf("openDiff: %v", a.err)
	}
	if a.r.IsError || !reflect.DeepEqual(a.r.Texts(), want) {
		t.Fatalf("openDiff result %q (isError %v), want %q", a.r.Texts(), a.r.IsError, want)
	}
}

// waitDiffs waits until the plugin shows exactly these diffs ("tab=state").
func (v *vim) waitDiffs(want ...string) {
	v.t.Helper()
	if want == nil {
		want = []string{}
	}
	w, _ := json.Marshal(want)
	v.waitEval(string(w), `map(claude_ide_bridge#State().diffs, {_, d -> d.tabName .. '=' .. d.state})`)
}

func (v *vim) tabpages() int {
	v.t.Helper()
	var n int
	v.evalInto(&n, "tabpagenr('$')")
	return n
}

// pendingA starts Vim with Claude connected and its proposal of proposed for a.txt (old) pending
// in tab A; with edit, a.txt is open in Vim first.
func pendingA(t *testing.T, old, proposed string, edit bool) (*vim, *probe.Client, string, chan toolAnswer) {
	t.Helper()
	v := startVim(t)
	c := v.claude()
	path := v.file("a.txt", old)
	if edit {
		v.ex("edit " + path)
	}
	ch := openDiff(t, c, path, proposed, tabA)
	v.waitDiffs(tabA + "=pending")
	return v, c, path, ch
}

// The editor protocol: "the editor must not write the file (Claude writes it). The diff view
// stays open until closeDiff." The issue: showDiff in a new tab with :diffsplit, the original
// read-only, the proposal editable, :w in it accepts.
func TestDiffAcceptWithWrite(t *testing.T) {
	v, c, path, ch := pendingA(t, "old\n", "new\n", true)
	var view struct {
		Tabs, Wins, Diff int
		Lines            []string
		Buftype          string
		OrigMod, PropMod int
	}
	v.evalInto(&view, `{'Tabs': tabpagenr('$'), 'Wins': winnr('$'), 'Diff': len(filter(range(1, winnr('$')), {_, w -> getwinvar(w, '&diff')})), 'Lines': getline(1, '$'), 'Buftype': &buftype, 'PropMod': &modifiable, 'OrigMod': getbufvar(winbufnr(1), '&modifiable')}`)
	if view.Tabs != 2 || view.Wins != 2 || view.Diff != 2 || !reflect.DeepEqual(view.Lines, []string{"new"}) ||
		view.Buftype != "acwrite" || view.OrigMod != 0 || view.PropMod != 1 {
		t.Fatalf("diff view %+v: want a second tab page, two windows in diff mode, the proposal current and editable, the original not", view)
	}
	v.normal()
	v.typeText(":w")
	v.keys("Enter")
	wantTexts(t, ch, "FILE_SAVED", "new\n")
	if got := harness.FileText(path); got != "old\n" {
		t.Fatalf("the plugin wrote the file: %q", got)
	}
	v.waitDiffs(tabA + "=accepted")
	if _, err := c.Tool(testbin.Ctx(t), "close_tab", map[string]any{"tab_name": tabA}); err != nil {
		t.Fatal(err)
	}
	v.waitDiffs()
	if n := v.tabpages(); n != 1 {
		t.Fatalf("%d tab pages after close_tab, want 1", n)
	}
}

// Spec: openDiff returns FILE_SAVED with the final contents, the user's edits included.
func TestDiffEditThenAccept(t *testing.T) {
	v, c, path, ch := pendingA(t, "old\n", "new\n", false)
	v.normal()
	v.typeText("A, edited")
	v.keys("Escape")
	v.typeText("omore")
	v.keys("Escape")
	v.typeText(":w")
	v.keys("Enter")
	wantTexts(t, ch, "FILE_SAVED", "new, edited\nmore\n")
	// The issue: selections of file buffers only; the proposal is none.
	for len(c.Notifications) > 0 {
		if m := <-c.Notifications; m.Method == "selection_changed" && !strings.Contains(string(m.Params), v.ws) {
			t.Errorf("Claude was sent a selection outside the files: %s", m.Params)
		}
	}
	if got := harness.FileText(path); got != "old\n" {
		t.Fatalf("the plugin wrote the file: %q", got)
	}
}

// The issue: ":q rejects"; so does :ClaudeCodeDiffDeny. Spec: DIFF_REJECTED with the tab name.
func TestDiffReject(t *testing.T) {
	for _, how := range []string{":q", ":ClaudeCodeDiffDeny"} {
		t.Run(how, func(t *testing.T) {
			v, _, path, ch := pendingA(t, "old\n", "new\n", true)
			v.normal()
			v.typeText(how)
			v.keys("Enter")
			wantTexts(t, ch, "DIFF_REJECTED", tabA)
			v.waitDiffs()
			if n := v.tabpages(); n != 1 {
				t.Fatalf("%d tab pages after the reject, want 1", n)
			}
			if got := harness.FileText(path); got != "old\n" {
				t.Fatalf("file changed: %q", got)
			}
		})
	}
}

// Spec (close_tab): "The plugin closes only the diff that openDiff opened with this exact
// tab_name." A pending diff closed so is settled, never as accepted; closeAllDiffTabs closes
// the rest.
func TestDiffCloseTabAndCloseAll(t *testing.T) {
	v, c, _, chA := pendingA(t, "a\n", "A\n", false)
	b := v.file("b.txt", "b\n")
	tabB := strings.Replace(tabA, "a.txt", "b.txt", 1)
	chB := openDiff(t, c, b, "B\n", tabB)
	v.waitDiffs(tabA+"=pending", tabB+"=pending")
	if _, err := c.Tool(testbin.Ctx(t), "close_tab", map[string]any{"tab_name": tabA}); err != nil {
		t.Fatal(err)
	}
	v.waitDiffs(tabB + "=pending")
	if r := <-chA; r.err != nil || (len(r.r.Texts()) > 0 && r.r.Texts()[0] == "FILE_SAVED") {
		t.Fatalf("close_tab accepted the diff: %+v", r)
	}
	if n := v.tabpages(); n != 2 {
		t.Fatalf("%d tab pages, want the user's and b's diff", n)
	}
	if _, err := c.Tool(testbin.Ctx(t), "closeAllDiffTabs", nil); err != nil {
		t.Fatal(err)
	}
	v.waitDiffs()
	if r := <-chB; r.err != nil || (len(r.r.Texts()) > 0 && r.r.Texts()[0] == "FILE_SAVED") {
		t.Fatalf("closeAllDiffTabs accepted the diff: %+v", r)
	}
	if n := v.tabpages(); n != 1 {
		t.Fatalf("%d tab pages after closeAllDiffTabs, want 1", n)
	}
}

// :ClaudeCodeCloseAllDiffs: pending diffs rejected; an accepted diff's text goes into the
// file's buffer as unsaved changes (setBufferText) when the file does not hold it.
func TestCloseAllDiffsCommand(t *testing.T) {
	v, c, a, chA := pendingA(t, "a\n", "A\n", false)
	b := v.file("b.txt", "b\n")
	tabB := strings.Replace(tabA, "a.txt", "b.txt", 1)
	v.ex("ClaudeCodeDiffAccept")
	wantTexts(t, chA, "FILE_SAVED", "A\n")
	chB := openDiff(t, c, b, "B\n", tabB)
	v.waitDiffs(tabA+"=accepted", tabB+"=pending")
	v.ex("ClaudeCodeCloseAllDiffs")
	wantTexts(t, chB, "DIFF_REJECTED", tabB)
	v.waitDiffs()
	v.waitEval(`[["A"], 1]`, `[getbufline(bufnr('`+a+`'), 1, '$'), getbufvar(bufnr('`+a+`'), '&modified')]`)
	if got := harness.FileText(a); got != "a\n" {
		t.Fatalf("the plugin wrote a.txt: %q", got)
	}
}

// The issue: "refuses a diff of a file with unsaved changes with a clear error".
func TestDiffRefusesUnsavedFile(t *testing.T) {
	v := startVim(t)
	c := v.claude()
	path := v.file("a.txt", "old\n")
	v.ex("edit " + path + "\ncall setline(1, 'unsaved')")
	a := <-openDiff(t, c, path, "new\n", tabA)
	msg := ""
	if a.err != nil {
		msg = a.err.Error()
	} else if a.r.IsError {
		msg = strings.Join(a.r.Texts(), " ")
	}
	if !strings.Contains(msg, "a.txt has unsaved changes") {
		t.Fatalf("answer %+v does not name the unsaved file", a)
	}
	v.waitDiffs()
}

// Issue 39 item 8: "no `:w accepts · :q rejects` hint" and "plain `:q` drops an edited proposal
// without E37 although the docs say `:q!` is needed". The proposal's status line says how to
// answer; :q on an edited proposal is refused (E37) and the diff stays pending; :q! rejects.
// Also "a tab label `c//p/✻ [Claude Code] ...`": the label is "Claude: <file name>".
func TestDiffHintAndEditedQuit(t *testing.T) {
	v, _, _, ch := pendingA(t, "old\n", "new\n", false)
	if sl := v.str(`&l:statusline`); !strings.Contains(sl, ":w accepts") || !strings.Contains(sl, "a.txt") {
		t.Errorf("the proposal's status line %q gives no hint", sl)
	}
	// The tab page's label (Vim's own tabline, drawn on the screen) names the file, not the
	// buffer's internal name (it read `c//p/✻ [Claude Code] ...`).
	if !harness.Poll(5*time.Second, func() bool { return strings.Contains(strings.SplitN(v.screen(), "\n", 2)[0], "Claude: a.txt ") }) {
		t.Errorf("tab label: %q, want Claude: a.txt", strings.SplitN(v.screen(), "\n", 2)[0])
	}
	v.normal()
	v.typeText("A, edited")
	v.keys("Escape")
	v.typeText(":q")
	v.keys("Enter")
	v.waitEval(`1`, `v:errmsg =~ 'E37' ? 1 : 0`)
	v.waitDiffs(tabA + "=pending")
	v.typeText(":q!")
	v.keys("Enter")
	wantTexts(t, ch, "DIFF_REJECTED", tabA)
	v.waitDiffs()
}

// Issue 38 item 4: a Gemini proposal (showDiff's agent "gemini") is labelled Gemini's (Claude's
// stay "Claude: a.txt": TestDiffHintAndEditedQuit); answered in Gemini's terminal (closeDiff), the
// CLI gets the view's text with the user's edits (diffText), and diffText of no view is null.
func TestGeminiDiffInVim(t *testing.T) {
	v := startVim(t)
	path := v.file("a.txt", "old\n")
	var pid int
	v.evalInto(&pid, "getpid()")
	cs, _ := harness.GeminiSession(t, filepath.Dir(v.home), pid)
	tab := "[Gemini] " + path
	harness.AgentCall(t, cs, "openDiff", map[string]any{"filePath": path, "newContent": "new\n"})
	v.waitDiffs(tab + "=pending")
	if sl := v.str(`&l:statusline`); !strings.Contains(sl, "a.txt (Gemini's proposal%m)") {
		t.Errorf("the proposal's status line %q does not name Gemini", sl)
	}
	if !harness.Poll(5*time.Second, func() bool { return strings.Contains(strings.SplitN(v.screen(), "\n", 2)[0], "Gemini: a.txt ") }) {
		t.Errorf("tab label: %q, want Gemini: a.txt", strings.SplitN(v.screen(), "\n", 2)[0])
	}
	v.ex("call setline(1, ['new', 'edited, answered in Gemini'])")
	// Only known names are shown; anything else the bridge sends is "An agent".
	v.ex(`call claude_ide_bridge#diff#Show({'tabName': 'odd', 'filePath': '` + path + `', 'newContents': "x\n", 'agent': "\e]0;x\x07"})`)
	if sl := v.str(`&l:statusline`); !strings.Contains(sl, "a.txt (An agent's proposal%m)") {
		t.Errorf("the status line of an unknown agent's proposal %q", sl)
	}
	v.ex("call claude_ide_bridge#diff#Close({'tabName': 'odd'})")
	r := harness.AgentCall(t, cs, "closeDiff", map[string]any{"filePath": path, "suppressNotification": true})
	if txt := r.Content[0].(*mcp.TextContent).Text; txt != `{"content":"new\nedited, answered in Gemini\n"}` {
		t.Fatalf("closeDiff %s", txt)
	}
	v.waitDiffs()
	if got := v.str(`json_encode(claude_ide_bridge#diff#Text({'tabName': 'none'}))`); got != `{"text":null}` {
		t.Errorf("diffText of no view %s", got)
	}
	if got := harness.FileText(path); got != "old\n" {
		t.Fatalf("Vim or the bridge wrote the file: %q", got)
	}
}
