package nvimtest

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/seltable"
)

// nvimMinor is the running Neovim's minor version (0.x).
func nvimMinor(t *testing.T, n *nvim) int {
	t.Helper()
	var v int
	n.luaInto(t, &v, `return vim.version().minor`)
	return v
}

// toNormal leaves Visual, Select or Insert mode and resets the options the
// cases change.
func toNormal(t *testing.T, n *nvim) {
	t.Helper()
	n.input(t, "<Esc><Esc>")
	n.waitLua(t, `"n"`, `return vim.api.nvim_get_mode().mode`)
	n.ex(t, "set selection& virtualedit& selectmode&")
}

// arrange opens a fresh file with the case's content and types its keys.
func arrange(t *testing.T, e *env, i int, tc seltable.Case) string {
	t.Helper()
	path := e.file(t, fmt.Sprintf("sel%02d.txt", i), tc.Content)
	toNormal(t, e.n)
	// ++bad=keep: invalid bytes stay as they are on disk.
	e.n.ex(t, "edit ++enc=utf-8 ++bad=keep "+path)
	if tc.Setup != "" {
		e.n.ex(t, tc.Setup)
	}
	e.n.input(t, "gg0"+tc.Keys)
	return path
}

// Every row of the table, through the bridge: the payload Claude receives in
// selection_changed.
func TestSelectionThroughBridge(t *testing.T) {
	e := newEnv(t, nil, true)
	eachCase(t, e, func(t *testing.T, want seltable.Selection) {
		e.waitSelection(t, want)
		// "The getCurrentSelection and getLatestSelection results use the
		// same encoding"
		for _, tool := range []string{"getLatestSelection", "getCurrentSelection"} {
			r := e.c.tool(t, tool, map[string]any{})
			if got, ok := decodeSel(json.RawMessage(r.Content[0].Text)); !ok || got != want {
				t.Errorf("%s: %s, want %+v", tool, r.Content[0].Text, want)
			}
		}
	})
}

// Spec: "With track_selection = false, getCurrentSelection reads the editor
// when Claude asks, with the same encoding."
func TestGetCurrentSelectionOnDemand(t *testing.T) {
	e := newEnv(t, map[string]any{"track_selection": false}, true)
	eachCase(t, e, func(t *testing.T, want seltable.Selection) {
		var last string
		ok := poll(func() bool {
			r := e.c.tool(t, "getCurrentSelection", map[string]any{})
			if len(r.Content) == 0 {
				return false
			}
			last = r.Content[0].Text
			got, ok := decodeSel(json.RawMessage(last))
			return ok && got == want
		})
		if !ok {
			t.Fatalf("getCurrentSelection\n want %+v\n last %s", want, last)
		}
	})
}

// eachCase runs f in a subtest for every row of the table that applies to this Neovim, the row
// arranged (its buffer, options and keys); want is the Selection Claude must get.
func eachCase(t *testing.T, e *env, f func(t *testing.T, want seltable.Selection)) {
	minor := nvimMinor(t, e.n)
	for i, tc := range seltable.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			if tc.Skip(minor) {
				t.Skipf("not for Neovim 0.%d", minor)
			}
			f(t, tc.Want(arrange(t, e, i, tc)))
		})
	}
}
