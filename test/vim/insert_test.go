package vimtest

import (
	"strings"
	"testing"
)

// A diff that comes while the user types in Insert mode takes the focus; the text they type next
// must not go into Claude's proposal: Insert mode ends as the proposal opens.
func TestDiffWhileInInsertMode(t *testing.T) {
	v := startVim(t)
	c := v.claude()
	path := v.file("a.txt", "old\n")
	v.ex("edit " + path)
	v.keys("i")
	v.waitEval(`"i"`, "mode()")
	ch := openDiff(t, c, path, "new\n", tabA)
	v.waitDiffs(tabA + "=pending")
	v.waitEval(`["acwrite", "n"]`, "[&buftype, mode()]")
	v.typeText("jk:let g:t_sync = 1") // motions and a command in Normal mode; in Insert mode, text
	v.keys("Enter")
	v.waitEval("1", "get(g:, 't_sync', 0)")
	v.waitEval(`[["new"], 0]`, "[getline(1, '$'), &modified]")
	v.normal()
	v.typeText(":w")
	v.keys("Enter")
	wantTexts(t, ch, "FILE_SAVED", "new\n")
}

// g:claude_ide_bridge_keep_focus = 1: a diff never takes the focus, also from Normal mode.
func TestKeepFocusOption(t *testing.T) {
	t.Parallel()
	v := startVim(t, "let g:claude_ide_bridge_keep_focus = 1")
	c := v.claude()
	path := v.file("a.txt", "old\n")
	v.ex("edit " + path)
	ch := openDiff(t, c, path, "new\n", tabA)
	v.waitDiffs(tabA + "=pending")
	if got := v.where(); got != "file n" {
		t.Fatalf("the diff took the focus: %q", got)
	}
	if m := v.messages(); !strings.Contains(m, "in tab page 2") {
		t.Fatalf("no message says where the diff is:\n%s", m)
	}
	v.ex("ClaudeCodeDiffAccept")
	wantTexts(t, ch, "FILE_SAVED", "new\n")
}
