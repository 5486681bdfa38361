package vimtest

import (
	"strings"
	"testing"
)

// Issue 39 item 3: "A diff opening while the user is typing takes the keys as Normal-mode
// commands in the proposal". A diff that comes while the user types in Insert mode opens in its
// tab page without taking the focus: the user goes on typing in their file, the proposal stays as
// Claude sent it, and a message says how to answer. Real keys (tmux).
func TestDiffWhileInInsertMode(t *testing.T) {
	t.Parallel()
	v := startVim(t)
	c := v.claude()
	path := v.file("a.txt", "old\n")
	v.ex("edit " + path)
	v.keys("i")
	v.waitEval(`"i"`, "mode()")
	ch := openDiff(t, c, path, "new\n", tabA)
	v.waitDiffs(tabA + "=pending")
	v.typeText("jk")
	v.waitEval(`[["jkold"], "i", ""]`, "[getline(1, '$'), mode(), &buftype]")
	if m := v.messages(); !strings.Contains(m, "ClaudeCodeDiffAccept") {
		t.Fatalf("no message says how to answer the diff:\n%s", m)
	}
	v.waitEval(`["new"]`, "getbufline(bufnr('^Claude: a.txt$'), 1, '$')")
	v.normal()
	v.typeText(":ClaudeCodeDiffDeny")
	v.keys("Enter")
	wantTexts(t, ch, "DIFF_REJECTED", tabA)
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
