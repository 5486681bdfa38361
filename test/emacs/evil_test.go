package emacstest

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/seltable"
)

// evilCases are the rows of the selection table (test/seltable) that
// need no Vim option, typed with the same keys into Evil (Vim's keys in Emacs): same name, same
// payload. Left out: the rows of 'virtualedit', 'selection' and 'selectmode', which Evil lacks.
var evilCases = []selCase{
	row("cursor only", "w"),
	row("cursor after multibyte", "l l"),
	row("charwise multibyte", "l v l"),
	row("charwise across lines", "l v j"),
	row("charwise backwards", "j l v k"),
	row("v$ mid buffer", "l v $"),
	row("v$ last line", "j l v $"),
	row("v on empty line mid buffer", "j v"),
	row("v$ empty last line", "j v $"),
	row("linewise", "V j"),
	row("linewise last line", "j V"),
	row("linewise ending on empty line", "V j"),
	row("linewise empty last line", "V j"),
	row("blockwise", "l C-v j l"),
	row("blockwise end past last char", "3 l C-v j"),
	row("blockwise bottom row shorter", "j C-v k 3 l"),
	row("blockwise end on empty row", "l C-v j"),
	row("blockwise $", "C-v j $"),
	// Not Vim's payload: Evil's block ends at the cursor's own column (c), where Vim's ends at
	// the right edge of 本 (d); the payload is what Evil selects (and y takes).
	{"blockwise wide characters", "日本語\nabcdef\n", k("l C-v j"), func(p string) selection { return seltable.Sel(p, "本語\nabc", 0, 3, 1, 3) }, nil, nil},
	row("composing character", "v"),
	row("TAB with composing since 0.11", "v"),
	row("invalid byte", "v"),
}

// The Neovim table in Evil: its Visual modes encoded as the Neovim plugin encodes Vim's.
func TestSelectionEvil(t *testing.T) {
	t.Parallel()
	evil, _ := filepath.Glob("/usr/share/emacs/site-lisp/elpa/evil-*")
	chg, _ := filepath.Glob("/usr/share/emacs/site-lisp/elpa/goto-chg-*")
	if len(evil) == 0 || len(chg) == 0 {
		harness.Missing(t, "elpa-evil", "Evil's Visual selections")
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
