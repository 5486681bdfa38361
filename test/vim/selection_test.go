package vimtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/seltable"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

type (
	selection = seltable.Selection
	pos       = seltable.Pos
)

// tmuxKeys turns Neovim's key notation of the table ("l<C-v>j", "<Right>") into tmux key names.
func tmuxKeys(keys string) []string {
	names := map[string]string{"<C-v>": "C-v", "<C-h>": "C-h", "<Right>": "Right", "<Down>": "Down", "<Esc>": "Escape"}
	var out []string
	for keys != "" {
		if keys[0] == '<' {
			if i := strings.IndexByte(keys, '>'); i > 0 {
				if n, ok := names[keys[:i+1]]; ok {
					out = append(out, n)
					keys = keys[i+1:]
					continue
				}
			}
		}
		out = append(out, keys[:1])
		keys = keys[1:]
	}
	return out
}

// waitSelection waits until Claude is sent a selection_changed equal to want.
func waitSelection(t *testing.T, v *vim, c *probe.Client, want selection) {
	t.Helper()
	ctx := testbin.Ctx(t)
	var seen []string
	for {
		select {
		case m := <-c.Notifications:
			if m.Method != "selection_changed" {
				continue
			}
			var got selection
			json.Unmarshal(m.Params, &got)
			if got == want {
				return
			}
			seen = append(seen, string(m.Params))
		case <-ctx.Done():
			t.Fatalf("no selection_changed %+v; seen:\n%s\nscreen:\n%s", want, strings.Join(seen, "\n"), v.screen())
		}
	}
}

// Every row of the table, typed with real keys in Vim in tmux, through the bridge: the payload
// Claude receives in selection_changed, and what getLatestSelection / getCurrentSelection answer.
func TestSelectionThroughBridge(t *testing.T) {
	v := startVim(t)
	c := v.claude()
	eachCase(t, v, func(t *testing.T, tc seltable.Case, path string) {
		start := time.Now()
		v.keys(tmuxKeys(tc.Keys)...)
		want := tc.Want(path)
		waitSelection(t, v, c, want)
		t.Logf("selection reached Claude %v after the keys were sent", time.Since(start).Round(time.Millisecond))
		// "The getCurrentSelection and getLatestSelection results use the same encoding"
		for _, tool := range []string{"getLatestSelection", "getCurrentSelection"} {
			r, err := c.Tool(testbin.Ctx(t), tool, map[string]any{})
			if err != nil || len(r.Content) == 0 {
				t.Fatalf("%s: %v %+v", tool, err, r)
			}
			var got selection
			json.Unmarshal([]byte(r.Content[0].Text), &got)
			if got != want {
				t.Errorf("%s: %s, want %+v", tool, r.Content[0].Text, want)
			}
		}
	})
}

// Spec: "With track_selection = false, getCurrentSelection reads the editor when Claude asks,
// with the same encoding": every row again, asked for instead of sent.
func TestGetCurrentSelectionOnDemand(t *testing.T) {
	v := startVim(t, "let g:claude_ide_bridge_track_selection = 0")
	c := v.claude()
	eachCase(t, v, func(t *testing.T, tc seltable.Case, path string) {
		v.keys(tmuxKeys(tc.Keys)...)
		want := tc.Want(path)
		var last string
		if !poll(func() bool {
			r, err := c.Tool(testbin.Ctx(t), "getCurrentSelection", map[string]any{})
			if err != nil || len(r.Content) == 0 {
				return false
			}
			last = r.Content[0].Text
			var got selection
			json.Unmarshal([]byte(last), &got)
			return got == want
		}) {
			t.Fatalf("getCurrentSelection\n want %+v\n last %s", want, last)
		}
	})
	if n := v.state().Sent; n != 0 {
		t.Errorf("%d selections sent with track_selection = 0", n)
	}
}

// eachCase runs f in a subtest for every row of the table that applies to Vim, with the row's
// buffer open at path, in Normal mode, and its options set.
func eachCase(t *testing.T, v *vim, f func(t *testing.T, tc seltable.Case, path string)) {
	for i, tc := range seltable.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			if tc.Since != 0 {
				t.Skip("Neovim 0.11+ counts grapheme clusters; Vim 9.0 does not")
			}
			v.t = t
			path := v.file(fmt.Sprintf("sel%02d.txt", i), tc.Content)
			v.normal()
			v.ex("set selection& virtualedit& selectmode&\nedit ++enc=utf-8 ++bad=keep " + path)
			if tc.Setup != "" {
				v.ex(tc.Setup)
			}
			f(t, tc, path)
		})
	}
}
