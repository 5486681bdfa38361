package emacstest

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

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
func (w *world) openDiff(t *testing.T, path, contents, tab string) chan toolAnswer {
	t.Helper()
	ch := make(chan toolAnswer, 1)
	ctx := testbin.CtxFor(t, 3*testbin.Bound)
	go func() {
		r, err := w.c.Tool(ctx, "openDiff", map[string]any{
			"old_file_path": path, "new_file_path": path, "new_file_contents": contents, "tab_name": tab,
		})
		ch <- toolAnswer{r, err}
	}()
	return ch
}

func wantTexts(t *testing.T, ch chan toolAnswer, want ...string) {
	t.Helper()
	var a toolAnswer
	select {
	case a = <-ch:
	case <-testbin.CtxFor(t, 3*testbin.Bound).Done():
		t.Fatalf("openDiff did not answer; want %q", want)
	}
	if a.err != nil || a.r.IsError || !reflect.DeepEqual(a.r.Texts(), want) {
		t.Fatalf("openDiff answered %v %+v, want %q", a.err, a.r, want)
	}
}

// waitDiffs waits until Emacs shows exactly these diffs ("tab=state").
func (w *world) waitDiffs(t *testing.T, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	var got []string
	if !harness.Poll(testbin.Bound, func() bool {
		got = nil
		w.e.value(t, &got, `(vconcat (mapcar (lambda (d) (format "%s=%s" (car d) (cdr d))) (claude-ide-bridge-diffs)))`)
		return reflect.DeepEqual(got, want)
	}) {
		t.Fatalf("diffs %q, want %q", got, want)
	}
}

// windows lists the buffers of the frame's windows.
func (w *world) windows(t *testing.T) []string {
	t.Helper()
	var names []string
	w.e.value(t, &names, `(vconcat (mapcar (lambda (w) (buffer-name (window-buffer w))) (window-list nil 'never)))`)
	return names
}

// Editor protocol: "`diffAccepted` ... the editor must not write the file (Claude writes it).
// The diff view stays open until `closeDiff`." C-c C-c in the proposal accepts it unedited
// (named by its number); close_tab restores the windows.
func TestDiffAcceptThenCloseTab(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", true)
	path := w.file(t, "a.txt", "old\n")
	w.visit(t, path)
	ch := w.openDiff(t, path, "new\n", tabA)
	w.waitDiffs(t, tabA+"=pending")
	// Ediff shows the original and the proposal side by side; the proposal is selected.
	if got := w.e.str(t, `(buffer-name (window-buffer (selected-window)))`); got != tabA {
		t.Fatalf("selected buffer %q, want the proposal", got)
	}
	if got := w.e.str(t, `(with-current-buffer (window-buffer (selected-window)) (buffer-string))`); got != "new\n" {
		t.Fatalf("proposal %q", got)
	}
	if wins := strings.Join(w.windows(t), "|"); !strings.Contains(wins, "*Claude original: a.txt*") || !strings.Contains(wins, tabA) {
		t.Fatalf("windows %s, want the original beside the proposal", wins)
	}
	w.e.keys(t, "C-c", "C-c")
	wantTexts(t, ch, "FILE_SAVED", "new\n")
	if got := harness.FileText(path); got != "old\n" {
		t.Fatalf("Emacs wrote the file: %q", got)
	}
	w.waitDiffs(t, tabA+"=accepted")
	if _, err := w.c.Tool(testbin.CtxFor(t, testbin.Bound), "close_tab", map[string]any{"tab_name": tabA}); err != nil {
		t.Fatal(err)
	}
	w.waitDiffs(t)
	if got := w.windows(t); !reflect.DeepEqual(got, []string{"a.txt"}) {
		t.Fatalf("windows after close_tab %q, want a.txt alone again", got)
	}
	// Ediff keeps its session registry, as after any Ediff session.
	var left []string
	w.e.value(t, &left, `(vconcat (seq-filter (lambda (n) (and (let ((case-fold-search nil)) (string-match-p "Claude original\\|✻\\|Ediff Control\\|\\*ediff-" n)) (not (equal n "*Ediff Registry*")))) (mapcar #'buffer-name (buffer-list))))`)
	if len(left) != 0 {
		t.Fatalf("buffers of the diff left: %q", left)
	}
}

// pendingA starts a world whose a.txt says "old", Claude's proposal "new" for it pending in tab A.
func pendingA(t *testing.T) (*world, string, chan toolAnswer) {
	t.Helper()
	w := newWorld(t, "", true)
	path := w.file(t, "a.txt", "old\n")
	ch := w.openDiff(t, path, "new\n", tabA)
	w.waitDiffs(t, tabA+"=pending")
	return w, path, ch
}

// Spec: openDiff returns FILE_SAVED with "<final file contents>" — "accepted with those contents
// (user edits included)". The edit is typed into the proposal.
func TestDiffEditThenAccept(t *testing.T) {
	t.Parallel()
	w, path, ch := pendingA(t)
	// Issue 38 item 4: no agent named is Claude's proposal (Gemini's: TestGeminiDiffInEmacs);
	// substitute-command-keys curves the quote.
	if hl := w.e.str(t, `(with-current-buffer (window-buffer) (format-mode-line header-line-format))`); !strings.HasPrefix(hl, "Claude’s proposal: edit it") {
		t.Errorf("the proposal's header line %q", hl)
	}
	w.e.keys(t, "C-e", ",", "Space", "e", "d", "i", "t", "e", "d", "C-c", "C-c")
	wantTexts(t, ch, "FILE_SAVED", "new, edited\n")
	if got := harness.FileText(path); got != "old\n" {
		t.Fatalf("Emacs wrote the file: %q", got)
	}
}

// An undo right after a diff opens must not empty the proposal: the insertion of Claude's text is
// not the user's change, so C-/ has nothing to undo and C-c C-c accepts the proposal as shown.
func TestUndoAfterDiffOpensKeepsProposal(t *testing.T) {
	t.Parallel()
	w, _, ch := pendingA(t)
	// Two sends, as a user would: Emacs discards typed-ahead keys when a command fails, and
	// C-/ with nothing to undo fails ("No further undo information").
	w.e.keys(t, "C-/")
	w.e.waitEval(t, "t", `(and (string-match-p "undo" (with-current-buffer "*Messages*" (buffer-string))) t)`)
	w.e.keys(t, "C-c", "C-c")
	wantTexts(t, ch, "FILE_SAVED", "new\n")
}

// Spec: DIFF_REJECTED with the tab name, for C-c C-k, killing the proposal's buffer, quitting Ediff;
// the windows come back and the file is untouched.
func TestDiffReject(t *testing.T) {
	t.Parallel()
	// The third: q in Ediff's control panel, y to its question.
	for _, how := range [][]string{{"C-c", "C-k"}, {"C-x", "k", "Enter"}, {"q", "y"}} {
		t.Run(strings.Join(how, " "), func(t *testing.T) {
			w := newWorld(t, "", true)
			path := w.file(t, "a.txt", "old\n")
			w.visit(t, path)
			ch := w.openDiff(t, path, "new\n", tabA)
			w.waitDiffs(t, tabA+"=pending")
			if how[0] == "q" {
				w.e.eval(t, `(progn (select-window (get-buffer-window (claude-ide-bridge--diff-control (car (hash-table-values claude-ide-bridge--diffs))))) nil)`)
			}
			w.e.keys(t, how...)
			wantTexts(t, ch, "DIFF_REJECTED", tabA)
			w.waitDiffs(t)
			if got := w.windows(t); !reflect.DeepEqual(got, []string{"a.txt"}) {
				t.Fatalf("windows after the reject %q, want a.txt alone again", got)
			}
			if got := harness.FileText(path); got != "old\n" {
				t.Fatalf("file changed: %q", got)
			}
		})
	}
}

// closeAllDiffTabs rejects every open diff and Emacs closes them all.
func TestCloseAllDiffTabs(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", true)
	a, b := w.file(t, "a.txt", "a\n"), w.file(t, "b.txt", "b\n")
	w.visit(t, a)
	tabB := "✻ [Claude Code] b.txt (bb0000) ⧉"
	cha := w.openDiff(t, a, "A\n", tabA)
	w.waitDiffs(t, tabA+"=pending")
	chb := w.openDiff(t, b, "B\n", tabB)
	w.waitDiffs(t, tabA+"=pending", tabB+"=pending")
	if _, err := w.c.Tool(testbin.CtxFor(t, testbin.Bound), "closeAllDiffTabs", nil); err != nil {
		t.Fatal(err)
	}
	wantTexts(t, cha, "DIFF_REJECTED", tabA)
	wantTexts(t, chb, "DIFF_REJECTED", tabB)
	w.waitDiffs(t)
	// The windows are those from before the first diff, whichever closed last.
	if got := w.windows(t); !reflect.DeepEqual(got, []string{"a.txt"}) {
		t.Fatalf("windows after closeAllDiffTabs %q, want a.txt alone again", got)
	}
}

// A showDiff for a file whose buffer has unsaved changes is refused with a sentence naming it.
func TestDiffRefusedOnUnsavedBuffer(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", true)
	path := w.file(t, "a.txt", "old\n")
	w.visit(t, path)
	w.e.keys(t, "x")
	w.e.waitEval(t, "t", `(buffer-modified-p (get-file-buffer `+lispQuote(path)+`))`)
	r, err := w.c.Tool(context.Background(), "openDiff", map[string]any{
		"old_file_path": path, "new_file_path": path, "new_file_contents": "new\n", "tab_name": tabA,
	})
	if err != nil || !r.IsError || !strings.Contains(strings.Join(r.Texts(), ""), "a.txt has unsaved changes") {
		t.Fatalf("openDiff on a modified buffer: %v %+v", err, r)
	}
	w.waitDiffs(t)
}

// A proposal for a file that does not exist yet: the original side is empty, the accept names
// the proposal, and Emacs creates no file (Claude writes it).
func TestDiffNewFile(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", true)
	path := filepath.Join(w.proj, "new.txt")
	ch := w.openDiff(t, path, "fresh\n", tabA)
	w.waitDiffs(t, tabA+"=pending")
	if got := w.e.str(t, `(with-current-buffer "*Claude original: new.txt*" (buffer-string))`); got != "" {
		t.Fatalf("original side %q, want empty", got)
	}
	w.e.keys(t, "C-c", "C-c")
	wantTexts(t, ch, "FILE_SAVED", "fresh\n")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("Emacs created %s: %v", path, err)
	}
}

// Issue 38 item 4: a Gemini proposal (showDiff's agent "gemini") says it is Gemini's; answered in
// Gemini's terminal (closeDiff), the CLI gets the view's text with the user's edits (diffText);
// diffText of no view is null.
func TestGeminiDiffInEmacs(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", false)
	path := w.file(t, "a.txt", "old\n")
	var pid int
	w.e.value(t, &pid, "(emacs-pid)")
	cs, _ := harness.GeminiSession(t, os.TempDir(), pid)
	tab := "[Gemini] " + path
	harness.AgentCall(t, cs, "openDiff", map[string]any{"filePath": path, "newContent": "new\n"})
	w.waitDiffs(t, tab+"=pending")
	if hl := w.e.str(t, `(with-current-buffer (window-buffer) (format-mode-line header-line-format))`); !strings.HasPrefix(hl, "Gemini’s proposal: edit it") {
		t.Errorf("the proposal's header line %q does not name Gemini", hl)
	}
	w.e.keys(t, "C-e", ",", "Space", "e", "d", "i", "t", "e", "d")
	w.e.waitEval(t, `"new, edited\n"`, `(with-current-buffer (window-buffer) (buffer-string))`)
	// Only known names are shown; anything else the bridge sends is "An agent".
	w.e.eval(t, `(progn (claude-ide-bridge--show-diff (list :tabName "odd" :filePath `+lispQuote(path)+` :newContents "x\n" :agent "\e]0;x\a")) nil)`)
	odd := w.e.str(t, `(with-current-buffer "odd" (format-mode-line header-line-format))`)
	w.e.eval(t, `(progn (claude-ide-bridge--close-diff '(:tabName "odd")) nil)`)
	if !strings.HasPrefix(odd, "An agent’s proposal") {
		t.Errorf("the header line of an unknown agent's proposal %q", odd)
	}
	r := harness.AgentCall(t, cs, "closeDiff", map[string]any{"filePath": path, "suppressNotification": true})
	if txt := r.Content[0].(*mcp.TextContent).Text; txt != `{"content":"new, edited\n"}` {
		t.Fatalf("closeDiff %s", txt)
	}
	w.waitDiffs(t)
	if got := w.e.str(t, `(jsonrpc--json-encode (claude-ide-bridge--diff-text '(:tabName "none")))`); got != `{"text":null}` {
		t.Errorf("diffText of no view %s", got)
	}
	if got := harness.FileText(path); got != "old\n" {
		t.Fatalf("Emacs or the bridge wrote the file: %q", got)
	}
}
