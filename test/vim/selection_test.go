package vimtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
)

type pos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type selection struct {
	Text      string `json:"text"`
	FilePath  string `json:"filePath"`
	Selection struct {
		Start   pos  `json:"start"`
		End     pos  `json:"end"`
		IsEmpty bool `json:"isEmpty"`
	} `json:"selection"`
}

func sel(path, text string, sl, sc, el, ec int) selection {
	var s selection
	s.Text, s.FilePath = text, path
	s.Selection.Start, s.Selection.End = pos{sl, sc}, pos{el, ec}
	s.Selection.IsEmpty = sl == el && sc == ec
	return s
}

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
	ctx := ctxT(t)
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
	for i, tc := range selCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.since != 0 {
				t.Skip("Neovim 0.11+ counts grapheme clusters; Vim 9.0 does not")
			}
			v.t = t
			path := v.file(fmt.Sprintf("sel%02d.txt", i), tc.content)
			v.normal()
			v.ex("set selection& virtualedit& selectmode&\nedit ++enc=utf-8 ++bad=keep " + path)
			if tc.setup != "" {
				v.ex(tc.setup)
			}
			start := time.Now()
			v.keys(tmuxKeys(tc.keys)...)
			want := tc.want(path)
			waitSelection(t, v, c, want)
			t.Logf("selection reached Claude %v after the keys were sent", time.Since(start).Round(time.Millisecond))
			// "The getCurrentSelection and getLatestSelection results use the same encoding"
			for _, tool := range []string{"getLatestSelection", "getCurrentSelection"} {
				r, err := c.Tool(ctxT(t), tool, map[string]any{})
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
}

// The table is the Neovim suite's: every case name there is here.
func TestSameSelectionTable(t *testing.T) {
	theirs, err := os.ReadFile(filepath.Join(root, "test", "nvim", "selection_cases_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, c := range selCases {
		names[c.name] = true
	}
	for _, m := range regexp.MustCompile(`\{name: "([^"]+)"`).FindAllStringSubmatch(string(theirs), -1) {
		if !names[m[1]] {
			t.Errorf("the Neovim suite's selection case %q is not in this table", m[1])
		}
	}
}

// Spec: "With track_selection = false, getCurrentSelection reads the editor when Claude asks,
// with the same encoding": every row again, asked for instead of sent.
func TestGetCurrentSelectionOnDemand(t *testing.T) {
	v := startVim(t, "let g:claude_ide_bridge_track_selection = 0")
	c := v.claude()
	for i, tc := range selCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.since != 0 {
				t.Skip("Neovim 0.11+ counts grapheme clusters; Vim 9.0 does not")
			}
			v.t = t
			path := v.file(fmt.Sprintf("sel%02d.txt", i), tc.content)
			v.normal()
			v.ex("set selection& virtualedit& selectmode&\nedit ++enc=utf-8 ++bad=keep " + path)
			if tc.setup != "" {
				v.ex(tc.setup)
			}
			v.keys(tmuxKeys(tc.keys)...)
			want := tc.want(path)
			var last string
			if !poll(func() bool {
				r, err := c.Tool(ctxT(t), "getCurrentSelection", map[string]any{})
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
	}
	if n := v.state().Sent; n != 0 {
		t.Errorf("%d selections sent with track_selection = 0", n)
	}
}
