package nvimtest

import (
	"fmt"
	"strings"
	"testing"
)

// Issue 14 item 2 (the 10 MiB diff froze Neovim for seconds): with 'diffopt'
// inline:char (Neovim 0.12's default) a changed hunk is compared character by
// character on every draw. For a diff of more than BIG_DIFF bytes the plugin
// uses inline:simple while that diff's tab page is current, and the user's
// exact value is back whenever it is not. The diff must still mark what
// changed: changed lines, added lines, and nothing on equal lines.
func TestBigDiffMarksChangesAndKeepsUserDiffopt(t *testing.T) {
	e := newEnv(t, nil, true)
	// The user's own value; inline: exists only where Neovim knows it (0.12).
	user := "internal,filler,closeoff,inline:char,context:4"
	// Issue 27: the user chose no algorithm, so the big diff is computed with histogram.
	cheap := "internal,filler,closeoff,inline:simple,context:4,algorithm:histogram"
	if e.n.str(t, `local v = ...; return tostring(pcall(function() vim.o.diffopt = v end))`, user) != "true" {
		user = "internal,filler,closeoff,context:4"
		cheap = user + ",algorithm:histogram"
		e.n.ex(t, "set diffopt="+user)
	}
	diffopt := func() string { return e.n.str(t, `return vim.o.diffopt`) }

	// A small diff leaves 'diffopt' alone.
	small := e.file(t, "small.txt", "a\n")
	ch := e.openDiff(t, small, "b\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	if got := diffopt(); got != user {
		t.Fatalf("'diffopt' with a small diff shown: %q, want the user's %q", got, user)
	}
	e.n.ex(t, "write")
	await(t, ch)
	e.c.tool(t, "close_tab", map[string]any{"tab_name": tabA})
	e.waitDiffs(t)

	var old, prop strings.Builder
	for i := 1; i <= 9000; i++ { // about 300 KiB a side
		line := fmt.Sprintf("line %d of a big file, with some text to compare", i)
		fmt.Fprintln(&old, line)
		switch i {
		case 4000:
			fmt.Fprintln(&prop, line+" CHANGED")
		case 6000:
			fmt.Fprintln(&prop, line)
			fmt.Fprintln(&prop, "an added line")
		default:
			fmt.Fprintln(&prop, line)
		}
	}
	big := e.file(t, "big.txt", old.String())
	const tabB = "✻ [Claude Code] big.txt (bb7495) ⧉"
	ch = e.openDiff(t, big, prop.String(), tabB)
	e.waitDiffs(t, tabB+"=pending")
	if got := diffopt(); got != cheap {
		t.Fatalf("'diffopt' while the big diff is current: %q, want %q", got, cheap)
	}
	// In the proposal (the current window): line 4000 changed, line 6001 added, line 10 equal.
	var hl []string
	e.n.luaInto(t, &hl, `
		local out = {}
		for _, l in ipairs({ 10, 4000, 6001 }) do
			out[#out + 1] = vim.fn.synIDattr(vim.fn.diff_hlID(l, 1), 'name')
		end
		return out`)
	if hl[0] != "" || (hl[1] != "DiffChange" && hl[1] != "DiffText") || hl[2] != "DiffAdd" {
		t.Fatalf("diff highlights of lines 10, 4000, 6001: %q, want none, DiffChange/DiffText, DiffAdd", hl)
	}
	e.n.ex(t, "tabfirst")
	if got := diffopt(); got != user {
		t.Fatalf("'diffopt' in another tab page: %q, want the user's %q", got, user)
	}
	e.n.ex(t, "tablast")
	if got := diffopt(); got != cheap {
		t.Fatalf("'diffopt' back in the big diff's tab page: %q, want %q", got, cheap)
	}
	e.n.ex(t, "write")
	wantTexts(t, toolOf(t, await(t, ch)), "FILE_SAVED", prop.String())
	e.c.tool(t, "close_tab", map[string]any{"tab_name": tabB})
	e.waitDiffs(t)
	if got := diffopt(); got != user {
		t.Fatalf("'diffopt' after the big diff closed: %q, want the user's %q", got, user)
	}

	// A value the user sets while the big diff is shown is theirs: the close keeps it.
	ch = e.openDiff(t, big, prop.String(), tabB)
	e.waitDiffs(t, tabB+"=pending")
	e.n.ex(t, "set diffopt=internal,filler")
	e.n.ex(t, "write")
	await(t, ch)
	e.c.tool(t, "close_tab", map[string]any{"tab_name": tabB})
	e.waitDiffs(t)
	if got := diffopt(); got != "internal,filler" {
		t.Fatalf("'diffopt' the user set during the diff became %q after it closed", got)
	}

	// An algorithm the user chose is kept for a big diff too.
	e.n.ex(t, "set diffopt=internal,filler,algorithm:patience")
	ch = e.openDiff(t, big, prop.String(), tabB)
	e.waitDiffs(t, tabB+"=pending")
	if got := diffopt(); got != "internal,filler,algorithm:patience" {
		t.Fatalf("'diffopt' with the user's algorithm, big diff shown: %q", got)
	}
	e.n.ex(t, "write")
	await(t, ch)
	e.c.tool(t, "close_tab", map[string]any{"tab_name": tabB})
	e.waitDiffs(t)
}
