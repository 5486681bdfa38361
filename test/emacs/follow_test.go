package emacstest

import (
	"os"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// Editor protocol, "Files changed on disk": "An editor should show the new text of an unmodified
// document and never overwrite a document with unsaved changes". Issue 30: "an unmodified buffer
// reverts, a modified one is kept with one message naming the file". No input is typed after
// the write: the buffer follows on its own.
func TestBufferFollowsDisk(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", false)
	clean, dirty := w.file(t, "clean.txt", "hello world\n"), w.file(t, "dirty.txt", "hello world\n")
	w.visit(t, dirty)
	w.e.keys(t, "m", "i", "n", "e", "Space")
	w.e.waitEval(t, "t", `(buffer-modified-p (get-file-buffer `+lispQuote(dirty)+`))`)
	w.visit(t, clean)
	for _, p := range []string{clean, dirty} {
		if err := os.WriteFile(p, []byte("hello there\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := func(p string) string {
		return w.e.str(t, `(with-current-buffer (get-file-buffer `+lispQuote(p)+`) (buffer-string))`)
	}
	if !harness.Poll(testbin.Bound, func() bool { return text(clean) == "hello there\n" }) {
		t.Fatalf("clean.txt's buffer shows %q after the file changed", text(clean))
	}
	if w.e.eval(t, `(buffer-modified-p (get-file-buffer `+lispQuote(clean)+`))`) != "nil" {
		t.Fatal("the reverted buffer is modified")
	}
	messages := func() []string {
		var out []string
		for _, l := range strings.Split(w.e.str(t, `(with-current-buffer "*Messages*" (buffer-string))`), "\n") {
			if strings.Contains(l, "dirty.txt") {
				out = append(out, l)
			}
		}
		return out
	}
	if !harness.Poll(testbin.Bound, func() bool { return len(messages()) > 0 }) {
		t.Fatal("no message names dirty.txt")
	}
	if m := messages(); len(m) != 1 || !strings.Contains(m[0], "unsaved changes: they are kept") {
		t.Errorf("messages about dirty.txt %q, want one about its unsaved changes", m)
	}
	if got := text(dirty); got != "mine hello world\n" {
		t.Errorf("the modified buffer was overwritten: %q", got)
	}
}
