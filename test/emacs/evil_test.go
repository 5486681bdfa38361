package emacstest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/seltable"
)

// evilCases are the rows of the selection table (test/seltable) that
// need no Vim option, typed with the same keys into Evil (Vim's keys in Emacs): same name, same
// payload. Left out: the rows of 'virtualedit', 'selection' and 'selectmode', which Evil lacks.
var evilCases = []selCase{
	{"cursor only", "hello world\n", k("w"), func(p string) selection { return seltable.Sel(p, "", 0, 6, 0, 6) }, nil, nil},
	{"cursor after multibyte", "日本語\n", k("l l"), func(p string) selection { return seltable.Sel(p, "", 0, 6, 0, 6) }, nil, nil},
	{"charwise multibyte", "日本語 abc\n", k("l v l"), func(p string) selection { return seltable.Sel(p, "本語", 0, 3, 0, 9) }, nil, nil},
	{"charwise across lines", "abc\ndef\n", k("l v j"), func(p string) selection { return seltable.Sel(p, "bc\nde", 0, 1, 1, 2) }, nil, nil},
	{"charwise backwards", "abc\ndef\n", k("j l v k"), func(p string) selection { return seltable.Sel(p, "bc\nde", 0, 1, 1, 2) }, nil, nil},
	{"v$ mid buffer", "abc\ndef\n", k("l v $"), func(p string) selection { return seltable.Sel(p, "bc\n", 0, 1, 1, 0) }, nil, nil},
	{"v$ last line", "abc\ndef\n", k("j l v $"), func(p string) selection { return seltable.Sel(p, "ef", 1, 1, 1, 3) }, nil, nil},
	{"v on empty line mid buffer", "a\n\nb\n", k("j v"), func(p string) selection { return seltable.Sel(p, "\n", 1, 0, 2, 0) }, nil, nil},
	{"v$ empty last line", "abc\n\n", k("j v $"), func(p string) selection { return seltable.Sel(p, "", 1, 0, 1, 1) }, nil, nil},
	{"linewise", "abc\ndef\nghi\n", k("V j"), func(p string) selection { return seltable.Sel(p, "abc\ndef", 0, 0, 1, 3) }, nil, nil},
	{"linewise last line", "abc\ndef\n", k("j V"), func(p string) selection { return seltable.Sel(p, "def", 1, 0, 1, 3) }, nil, nil},
	{"linewise ending on empty line", "abc\n\nx\n", k("V j"), func(p string) selection { return seltable.Sel(p, "abc\n\n", 0, 0, 2, 0) }, nil, nil},
	{"linewise empty last line", "abc\n\n", k("V j"), func(p string) selection { return seltable.Sel(p, "abc\n", 0, 0, 1, 1) }, nil, nil},
	{"blockwise", "abcd\nefgh\nij\n", k("l C-v j l"), func(p string) selection { return seltable.Sel(p, "bcd\nefg", 0, 1, 1, 3) }, nil, nil},
	{"blockwise end past last char", "abcd\nef\n", k("3 l C-v j"), func(p string) selection { return seltable.Sel(p, "cd\nef", 0, 2, 1, 2) }, nil, nil},
	{"blockwise bottom row shorter", "abcd\nef\n", k("j C-v k 3 l"), func(p string) selection { return seltable.Sel(p, "abcd\nef", 0, 0, 1, 2) }, nil, nil},
	{"blockwise end on empty row", "abc\n\n", k("l C-v j"), func(p string) selection { return seltable.Sel(p, "abc\n", 0, 0, 1, 1) }, nil, nil},
	{"blockwise $", "ab\ncdef\n", k("C-v j $"), func(p string) selection { return seltable.Sel(p, "ab\ncdef", 0, 0, 1, 4) }, nil, nil},
	// Not Vim's payload: Evil's block ends at the cursor's own column (c), where Vim's ends at
	// the right edge of 本 (d); the payload is what Evil selects (and y takes).
	{"blockwise wide characters", "日本語\nabcdef\n", k("l C-v j"), func(p string) selection { return seltable.Sel(p, "本語\nabc", 0, 3, 1, 3) }, nil, nil},
	{"composing character", "e\u0301x\n", k("v"), func(p string) selection { return seltable.Sel(p, "e\u0301", 0, 0, 0, 3) }, nil, nil},
	{"TAB with composing since 0.11", "\t\u0301a\n", k("v"), func(p string) selection { return seltable.Sel(p, "\t", 0, 0, 0, 1) }, nil, nil},
	{"invalid byte", "\xff\u0301a\n", k("v"), func(p string) selection { return seltable.Sel(p, "\ufffd", 0, 0, 0, 1) }, nil, nil},
}

// The Neovim table in Evil: its Visual modes encoded as the Neovim plugin encodes Vim's.
func TestSelectionEvil(t *testing.T) {
	t.Parallel()
	evil, _ := filepath.Glob("/usr/share/emacs/site-lisp/elpa/evil-*")
	chg, _ := filepath.Glob("/usr/share/emacs/site-lisp/elpa/goto-chg-*")
	if len(evil) == 0 || len(chg) == 0 {
		if os.Getenv("CLAUDE_IDE_BRIDGE_REQUIRE_EDITORS") == "1" {
			t.Fatal("Evil is not installed (scripts/test installs elpa-evil)")
		}
		t.Skip("SKIPPED: Evil is not installed (apt-get install elpa-evil): Evil's Visual selections are NOT tested")
	}
	w := newWorld(t, `(add-to-list 'load-path `+lispQuote(evil[0])+`) (add-to-list 'load-path `+lispQuote(chg[0])+`)
	  (require 'evil) (evil-mode 1)`, true)
	for i, tc := range evilCases {
		t.Run(tc.name, func(t *testing.T) {
			path := w.file(t, fmt.Sprintf("evil%02d.txt", i), tc.content)
			w.e.eval(t, `(progn (evil-normal-state) nil)`)
			w.visit(t, path)
			w.e.keys(t, tc.keys...)
			w.waitSelection(t, tc.want(path))
		})
	}
}
