package vimtest

import (
	"os"
	"strings"
	"testing"
)

// Editor protocol, "Files changed on disk": an editor should show the new text of an unmodified
// document and never overwrite a document with unsaved changes. The issue: modified buffers are
// kept with one warning naming the file.
func TestBufferFollowsDisk(t *testing.T) {
	v := startVim(t)
	v.claude()
	a := v.file("a.txt", "one\n")
	b := v.file("b.txt", "keep\n")
	v.ex("edit " + a + "\nbadd " + b + "\ncall bufload(bufnr('" + b + "'))\ncall setbufline(bufnr('" + b + "'), 1, 'mine')")
	os.WriteFile(a, []byte("two\nthree\n"), 0o644)
	os.WriteFile(b, []byte("theirs\n"), 0o644)
	v.waitEval(`["two", "three"]`, "getline(1, '$')")
	v.waitEval(`1`, `len(filter(split(execute('messages'), "\n"), {_, l -> l =~ 'b.txt changed on disk'}))`)
	v.waitEval(`[["mine"], 1]`, `[getbufline(bufnr('`+b+`'), 1, '$'), getbufvar(bufnr('`+b+`'), '&modified')]`)
	if strings.Contains(v.messages(), "a.txt changed") {
		t.Fatalf("a warning for the unmodified buffer:\n%s", v.messages())
	}
	// One warning per change: the next checks say nothing more.
	v.ex("call claude_ide_bridge#CheckTime()\ncall claude_ide_bridge#CheckTime()")
	v.waitEval(`1`, `len(filter(split(execute('messages'), "\n"), {_, l -> l =~ 'b.txt changed on disk'}))`)
}
