package emacstest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/seltable"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

func (w *world) tool(t *testing.T, name string, args map[string]any) string {
	t.Helper()
	r, err := w.c.Tool(testbin.CtxFor(t, testbin.Bound), name, args)
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError {
		t.Fatalf("%s: %q", name, r.Texts())
	}
	return strings.Join(r.Texts(), "")
}

// Claude's openFile with startText/endText: Emacs shows the file with that range as the region
// (the bridge found it), which is then the selection Claude sees.
func TestOpenFileSelectsRange(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", true)
	path := w.file(t, "a.txt", "one\ntwo 日本 three\nfour\n")
	w.tool(t, "openFile", map[string]any{"filePath": path, "startText": "日本", "endText": "three"})
	if got := w.e.str(t, `(with-current-buffer (window-buffer (selected-window)) (concat (buffer-name) ":" (if (region-active-p) (buffer-substring (region-beginning) (region-end)) "-")))`); got != "a.txt:日本 three" {
		t.Fatalf("after openFile: %q", got)
	}
	// The region reaches Claude once the user acts (here C-e extends it to the same line end).
	w.e.keys(t, "C-e")
	w.waitSelection(t, seltable.Sel(path, "日本 three", 1, 4, 1, 16))
}

// getOpenEditors, checkDocumentDirty and saveDocument read and drive Emacs's file buffers.
func TestOpenEditorsDirtySave(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", true)
	a, b := w.file(t, "a.txt", "a\n"), w.file(t, "b.el", "b\n")
	w.visit(t, b)
	w.visit(t, a)
	w.e.keys(t, "x")
	w.e.waitEval(t, "t", `(buffer-modified-p (get-file-buffer `+lispQuote(a)+`))`)
	var eds struct {
		Tabs []struct {
			URI, LanguageID, Label string
			IsActive, IsDirty      bool
		} `json:"tabs"`
	}
	json.Unmarshal([]byte(w.tool(t, "getOpenEditors", nil)), &eds)
	got := map[string]string{}
	for _, e := range eds.Tabs {
		got[e.URI] = e.Label + " " + e.LanguageID + map[bool]string{true: " active", false: ""}[e.IsActive] + map[bool]string{true: " dirty", false: ""}[e.IsDirty]
	}
	if got["file://"+a] != "a.txt text active dirty" || got["file://"+b] != "b.el emacs-lisp" || len(got) != 2 {
		t.Fatalf("getOpenEditors: %q", got)
	}
	if d := w.tool(t, "checkDocumentDirty", map[string]any{"filePath": a}); !strings.Contains(d, `"isDirty":true`) {
		t.Fatalf("checkDocumentDirty: %s", d)
	}
	if s := w.tool(t, "saveDocument", map[string]any{"filePath": a}); !strings.Contains(s, `"success":true`) {
		t.Fatalf("saveDocument: %s", s)
	}
	if got := harness.FileText(a); got != "xa\n" {
		t.Fatalf("saved file %q", got)
	}
	if d := w.tool(t, "checkDocumentDirty", map[string]any{"filePath": a}); !strings.Contains(d, `"isDirty":false`) {
		t.Fatalf("checkDocumentDirty after the save: %s", d)
	}
}

// getDiagnostics answers from flymake: here Emacs's own checkdoc backend on an .el file.
func TestDiagnosticsFromFlymake(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", true)
	path := w.file(t, "bad.el", "(defun bad-fn () 1)\n")
	w.visit(t, path)
	w.e.eval(t, `(with-current-buffer (get-file-buffer `+lispQuote(path)+`) (setq-local flymake-diagnostic-functions '(elisp-flymake-checkdoc)) (flymake-mode 1) (flymake-start) nil)`)
	var text string
	if !harness.Poll(testbin.Bound, func() bool {
		text = w.tool(t, "getDiagnostics", map[string]any{"uri": "file://" + path})
		return strings.Contains(text, "documentation string")
	}) {
		t.Fatalf("getDiagnostics: %s", text)
	}
	var files []struct {
		URI         string `json:"uri"`
		Diagnostics []struct {
			Message, Severity, Source string
			Range                     struct{ Start, End pos }
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(text), &files); err != nil || len(files) != 1 || len(files[0].Diagnostics) == 0 {
		t.Fatalf("getDiagnostics: %s (%v)", text, err)
	}
	d := files[0].Diagnostics[0]
	if d.Range.Start.Line != 0 || d.Source != "elisp-flymake-checkdoc" {
		t.Errorf("diagnostic %+v", d)
	}
}

// claude-ide-bridge-send: the region's lines (a region ending at a line's start leaves that line
// out), the whole file, and Dired's marked files, as at_mentioned.
func TestSendMentions(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", true)
	path := w.file(t, "a.txt", "one\ntwo\nthree\nfour\n")
	other := w.file(t, "b.txt", "b\n")
	w.visit(t, path)
	want := func(json string) {
		t.Helper()
		var seen []string
		ctx := testbin.CtxFor(t, testbin.Bound)
		for {
			m, err := w.c.Next(ctx, "at_mentioned")
			if err != nil {
				t.Fatalf("no at_mentioned %s; got %q", json, seen)
			}
			if string(m.Params) == json {
				return
			}
			seen = append(seen, string(m.Params))
		}
	}
	w.e.keys(t, "C-n", "C-Space", "C-n", "C-n")
	send := `(with-current-buffer (window-buffer (selected-window)) (call-interactively #'claude-ide-bridge-send) nil)`
	w.e.eval(t, send)
	want(`{"filePath":` + quote(path) + `,"lineStart":1,"lineEnd":2}`)
	w.e.eval(t, `(with-current-buffer (window-buffer (selected-window)) (deactivate-mark))`)
	w.e.eval(t, send)
	want(`{"filePath":` + quote(path) + `}`)
	w.e.eval(t, `(progn (dired `+lispQuote(w.proj)+`) (dired-goto-file `+lispQuote(other)+`) nil)`)
	w.e.eval(t, send)
	want(`{"filePath":` + quote(filepath.Clean(other)) + `}`)
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// Issue 39 item 4: a Claude whose mode writes Edit/Write without a diff (its calls: getDiagnostics
// {uri}, the file written, no openDiff) is told to the user once, as a message.
func TestDiffsSkippedMessage(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", true)
	path := w.file(t, "a.txt", "one\n")
	for _, text := range []string{"two\n", "three\n"} {
		w.tool(t, "getDiagnostics", map[string]any{"uri": "file://" + path})
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		w.tool(t, "getDiagnostics", map[string]any{})
	}
	want := "claude-ide-bridge: Claude wrote a.txt without showing a diff"
	messages := func() string { return w.e.str(t, `(with-current-buffer "*Messages*" (buffer-string))`) }
	if !harness.Poll(10*time.Second, func() bool { return strings.Contains(messages(), want) }) {
		t.Fatalf("no message %q:\n%s", want, messages())
	}
	if n := strings.Count(messages(), want); n != 1 {
		t.Errorf("%d messages, want 1:\n%s", n, messages())
	}
}
