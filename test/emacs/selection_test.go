package emacstest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/seltable"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// The payload shape of the spec (the bridge's fileUrl is not compared), as the table has it.
type (
	selection = seltable.Selection
	pos       = seltable.Pos
)

// selCase is a row of the selection table (test/seltable, same name and
// same payload) typed with Emacs's keys, or an Emacs row. keys are tmux key names typed from
// the buffer's start.
type selCase struct {
	name, content string
	keys          []string
	want          func(path string) selection
	// then: keys typed once the selection mid arrived (C-g discards the keys typed before it
	// that Emacs has not read yet).
	mid  func(path string) selection
	then []string
}

func k(s string) []string { return strings.Fields(s) }

// row is the selection table's row name (its buffer and its payload) typed with keys (tmux key
// names): the Emacs suite shares the table's payloads, it does not copy them.
func row(name, keys string) selCase {
	for _, c := range seltable.Cases {
		if c.Name == name {
			return selCase{name: name, content: c.Content, keys: k(keys), want: c.Want}
		}
	}
	panic("test/seltable has no row " + name)
}

// Spec (Selection Updates): "line is 0-based. character is a 0-based UTF-8 byte offset into the
// buffer line ... end is exclusive". The Neovim rows with no Emacs gesture are left out: linewise
// (V), 'virtualedit', 'selection' exclusive, Select mode, and the rows whose payload comes from
// where Vim puts the cursor (v$ on an empty last line, a block whose end is past a short line).
var selCases = []selCase{
	// "None (cursor only) | the cursor | the same as start, with isEmpty: true"
	row("cursor only", "M-f C-f"),
	// "In 日本語, the position after 本 is character 6 here"
	row("cursor after multibyte", "C-f C-f"),
	// "Charwise (v) | the first selected byte | after the last selected character"
	row("charwise multibyte", "C-f C-Space C-f C-f"),
	row("charwise across lines", "C-f C-Space C-n C-f"),
	// The region's direction does not change the payload: start is the first position.
	row("charwise backwards", "C-n C-f C-f C-Space C-p C-b"),
	// "v$ ... character 0 of the next line ... the selected text with the line break"
	row("v$ mid buffer", "C-f C-Space C-n C-a"),
	row("v$ last line", "C-n C-f C-Space C-e"),
	row("v on empty line mid buffer", "C-n C-Space C-f"),

	// "Blockwise (Ctrl-V) | as charwise | ... the contiguous span from the block's first
	// position to its last, not the rectangle" (C-x SPC; an Emacs rectangle ends before point's
	// column, a Vim block after the cursor's character: the keys differ, the payload not).
	row("blockwise", "C-f C-x Space C-n C-f C-f"),
	row("blockwise bottom row shorter", "C-n C-x Space C-p C-e"),
	// "and an end on an empty row is character 1"
	row("blockwise end on empty row", "C-x Space C-f C-n"),
	row("blockwise $", "C-x Space C-n C-e"),
	row("blockwise wide characters", "C-f C-x Space C-n C-f C-f"),

	// "A character is what Neovim's y takes as one: a code point with its composing characters"
	// (Emacs moves over the composition as one).
	row("composing character", "C-Space C-f"),
	// "a control such as a TAB ... is a character of its own, and a composing character after
	// it is the next character" (the 0.11+ row)
	row("TAB with composing since 0.11", "C-Space C-f"),
	// "On every version an invalid byte is a character of its own too" (JSON carries it as
	// U+FFFD; the offsets count the byte).
	row("invalid byte", "C-Space C-f"),

	// Emacs rows: a region that is empty or no longer active is the cursor alone; a rectangle
	// made upwards and to the left is the same span.
	{"empty region", "abc\n", k("C-f C-Space"), func(p string) selection { return seltable.Sel(p, "", 0, 1, 0, 1) }, nil, nil},
	{"region quit with C-g", "abc\n", k("C-Space C-f C-f"), func(p string) selection { return seltable.Sel(p, "", 0, 2, 0, 2) },
		func(p string) selection { return seltable.Sel(p, "ab", 0, 0, 0, 2) }, k("C-g")},
	{"rectangle backwards", "abcd\nefgh\n", k("C-n C-f C-f C-f C-x Space C-p C-b C-b"), func(p string) selection { return seltable.Sel(p, "bcd\nefg", 0, 1, 1, 3) }, nil, nil},
}

// Every row, typed in a real Emacs: the payload Claude receives in selection_changed, and the
// same from getLatestSelection ("The getCurrentSelection and getLatestSelection results use
// the same encoding").
func TestSelectionThroughBridge(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", true)
	for i, tc := range selCases {
		t.Run(tc.name, func(t *testing.T) {
			path := w.file(t, fmt.Sprintf("sel%02d.txt", i), tc.content)
			w.visit(t, path)
			w.e.keys(t, tc.keys...)
			if tc.then != nil {
				w.waitSelection(t, tc.mid(path))
				w.e.keys(t, tc.then...)
			}
			want := tc.want(path)
			w.waitSelection(t, want)
			for _, tool := range []string{"getLatestSelection", "getCurrentSelection"} {
				r, err := w.c.Tool(testbin.CtxFor(t, testbin.Bound), tool, nil)
				if err != nil {
					t.Fatal(err)
				}
				var got selection
				if json.Unmarshal([]byte(r.Texts()[0]), &got); got != want {
					t.Errorf("%s: %s, want %+v", tool, r.Texts()[0], want)
				}
			}
		})
	}
}

// waitSelection waits for Claude to be sent selection_changed equal to want.
func (w *world) waitSelection(t *testing.T, want selection) {
	t.Helper()
	var seen []string
	ctx := testbin.CtxFor(t, testbin.Bound)
	for {
		m, err := w.c.Next(ctx, "selection_changed")
		if err != nil {
			t.Fatalf("no selection_changed %+v; Claude got:\n%s", want, strings.Join(seen, "\n"))
		}
		var got selection
		if json.Unmarshal(m.Params, &got) == nil && got == want {
			return
		}
		seen = append(seen, string(m.Params))
	}
}
