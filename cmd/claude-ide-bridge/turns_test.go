package main

import (
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
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
