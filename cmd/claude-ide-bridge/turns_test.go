package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// review's text output escapes every path and diff line (a file name or its text can hold
// terminal escapes) and says which files are not diffed and why.
func TestPrintReview(t *testing.T) {
	a := review.Answer{
		Report: review.Report{Turn: 4, Files: []review.FileReport{
			{Path: "/w/\x1b[2Jevil.txt", Status: "modified", By: "Edit/Write", Added: 1, Deleted: 1,
				Diff: "--- a\n+++ a\n@@ -1 +1 @@\n-x\n+\x1b]0;owned\x07y\n"},
			{Path: "/w/img.png", Status: "modified", By: "other", From: review.FromGit, Binary: true},
		}, Summary: review.Summary{Turn: 4, Files: 2, Added: 1, Deleted: 1}},
		Turns: []review.Summary{{Turn: 4, Files: 2, Added: 1, Deleted: 1}, {Turn: 3, Files: 1}},
	}
	var b strings.Builder
	printReview(&b, a, "/w")
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("raw escapes printed:\n%q", out)
	}
	for _, want := range []string{
		"turn 4 (ended): Claude changed 2 files: +1 -1\n",
		"modified img.png  +0 -0  (other means; earlier text: git index) binary, not diffed\n",
		"turns kept: 4 (2 files, +1 -1) 3 (1 file, +0 -0)\n", // issue 39 item 10: it said "1 files"
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// Issue 39 item 10: `review` "lists paths relative to the workspace but takes `--revert` relative
// to the cwd, and says "reverted ... to its text" for a created file it deleted". From a
// subfolder, the path as listed reverts; a created file's revert says it was removed.
func TestReviewRevertAsListed(t *testing.T) {
	h := newHome(t)
	s := h.serve(t, nil, "--auto", "accept", "--lsp", "none")
	sub := filepath.Join(h.ws, "sub")
	os.MkdirAll(sub, 0o755)
	a, created, gone := filepath.Join(sub, "a.txt"), filepath.Join(h.ws, "new.txt"), filepath.Join(h.ws, "gone.txt")
	os.WriteFile(a, []byte("old\n"), 0o644)
	os.WriteFile(gone, []byte("kept\n"), 0o644)
	c := s.claude(t)
	call := func(name string, args map[string]any) {
		t.Helper()
		if _, err := c.Tool(testbin.Ctx(t), name, args); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// A turn as the CLI makes it in auto mode: closeAllDiffTabs at the prompt, getDiagnostics
	// {uri} right before each write, closeAllDiffTabs at the next prompt.
	call("closeAllDiffTabs", map[string]any{})
	call("getDiagnostics", map[string]any{"uri": "file://" + a})
	os.WriteFile(a, []byte("new\n"), 0o644)
	call("getDiagnostics", map[string]any{"uri": "file://" + created})
	os.WriteFile(created, []byte("made\n"), 0o644)
	call("getDiagnostics", map[string]any{"uri": "file://" + gone})
	os.Remove(gone)
	call("closeAllDiffTabs", map[string]any{})

	out, stderr, code := h.command(t, sub, "review", "--turn", "1")
	if code != 0 || !strings.Contains(out, " sub/a.txt ") {
		t.Fatalf("review: %d %s %s", code, out, stderr)
	}
	// Diff headers as git writes them (issue 39 item 10: they read a/<absolute path>).
	for _, want := range []string{"\n--- a/sub/a.txt\n+++ b/sub/a.txt\n@@ ", "\n--- /dev/null\n+++ b/new.txt\n@@ "} {
		if !strings.Contains(out, want) {
			t.Errorf("review's diffs lack %q:\n%s", want, out)
		}
	}
	out, stderr, code = h.command(t, sub, "review", "--turn", "1", "--revert", "sub/a.txt")
	if b, _ := os.ReadFile(a); code != 0 || string(b) != "old\n" || !strings.Contains(out, "reverted sub/a.txt to its text at the start of turn 1") {
		t.Fatalf("--revert sub/a.txt from sub/: %d %q %s %s", code, b, out, stderr)
	}
	out, stderr, code = h.command(t, h.ws, "review", "--turn", "1", "--revert", "new.txt")
	if _, err := os.Stat(created); code != 0 || !os.IsNotExist(err) || !strings.Contains(out, "removed new.txt (Claude created it in turn 1)") {
		t.Fatalf("--revert new.txt: %d %v %s %s", code, err, out, stderr)
	}
	// A file Claude deleted, named as listed from a subfolder: its folder is resolved instead.
	out, stderr, code = h.command(t, sub, "review", "--turn", "1", "--revert", "gone.txt")
	if b, _ := os.ReadFile(gone); code != 0 || string(b) != "kept\n" || !strings.Contains(out, "reverted gone.txt") {
		t.Fatalf("--revert gone.txt from sub/: %d %q %s %s", code, b, out, stderr)
	}
}

// serve's diffs name the file as git does: a/ and b/ paths relative to the workspace, /dev/null
// for a file Claude creates (issue 39 item 10: they read a/<absolute path>).
func TestServeDiffHeadersAreGits(t *testing.T) {
	h := newHome(t)
	s := h.serve(t, nil, "--auto", "accept", "--lsp", "none")
	sub := filepath.Join(h.ws, "sub")
	os.MkdirAll(sub, 0o755)
	a := filepath.Join(sub, "a.txt")
	os.WriteFile(a, []byte("old\n"), 0o644)
	c := s.claude(t)
	await(t, openDiff(t, c, a, "new\n", "✻ [Claude Code] a.txt (aa7495) ⧉"))
	s.waitFor(t, reText("--- a/sub/a.txt\n+++ b/sub/a.txt\n@@ "))
	await(t, openDiff(t, c, filepath.Join(h.ws, "made.txt"), "made\n", "✻ [Claude Code] made.txt (bb7495) ⧉"))
	s.waitFor(t, reText("--- /dev/null\n+++ b/made.txt\n@@ "))
}
