package nvimtest

import (
	"encoding/hex"
	"os"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/seltable"
)

// encodeCase calls selection.encode directly: no bridge, no key presses.
// Positions are {line, col} (0-based, bytes) of getpos("v") and the cursor.
type encodeCase struct {
	name           string
	mode           string
	lines          []string
	anchor, cur    [2]int
	opts           map[string]any
	text           string // bytes, compared exactly (hex)
	sl, sc, el, ec int
}

var encodeCases = []encodeCase{
	// "None (cursor only) | the cursor | the same as start, with isEmpty: true"
	{name: "cursor", mode: "n", lines: []string{"abc"}, cur: [2]int{0, 2}, sl: 0, sc: 2, el: 0, ec: 2},
	{name: "cursor in insert mode at line end", mode: "i", lines: []string{"abc"}, cur: [2]int{0, 3}, sl: 0, sc: 3, el: 0, ec: 3},
	// "Charwise (v) | the first selected byte | after the last selected character"
	{name: "charwise 日本語", mode: "v", lines: []string{"日本語"}, anchor: [2]int{0, 0}, cur: [2]int{0, 3},
		text: "日本", sl: 0, sc: 0, el: 0, ec: 6},
	// "v$ ... character 0 of the next line"
	{name: "v$", mode: "v", lines: []string{"abc", "d"}, anchor: [2]int{0, 1}, cur: [2]int{0, 3},
		text: "bc\n", sl: 0, sc: 1, el: 1, ec: 0},
	{name: "v$ last line", mode: "v", lines: []string{"abc"}, anchor: [2]int{0, 1}, cur: [2]int{0, 3},
		text: "bc", sl: 0, sc: 1, el: 0, ec: 3},
	{name: "v$ virtualedit=all", mode: "v", lines: []string{"abc", "d"}, anchor: [2]int{0, 1}, cur: [2]int{0, 3},
		opts: map[string]any{"virtualedit_all": true}, text: "bc", sl: 0, sc: 1, el: 0, ec: 3},
	// "Linewise (V) ... If that line is empty: character 0 of the next line"
	{name: "V to empty line", mode: "V", lines: []string{"a", "", "b"}, anchor: [2]int{0, 0}, cur: [2]int{1, 0},
		text: "a\n\n", sl: 0, sc: 0, el: 2, ec: 0},
	{name: "V empty last line", mode: "V", lines: []string{"a", ""}, anchor: [2]int{0, 0}, cur: [2]int{1, 0},
		text: "a\n", sl: 0, sc: 0, el: 1, ec: 1},
	// "Blockwise (Ctrl-V) ... the contiguous span from the block's first
	// position to its last"; the cursor at the top right, anchor bottom left.
	{name: "block corners swapped", mode: "\x16", lines: []string{"abcd", "efgh"}, anchor: [2]int{1, 1}, cur: [2]int{0, 2},
		text: "bcd\nefg", sl: 0, sc: 1, el: 1, ec: 3},
	{name: "block with TAB", mode: "\x16", lines: []string{"\tx", "abcdefghij"}, anchor: [2]int{0, 1}, cur: [2]int{1, 8},
		opts: map[string]any{"tabstop": 8}, text: "x\nabcdefghi", sl: 0, sc: 1, el: 1, ec: 9},
	// Select mode "uses the same encoding as the Visual mode of the same type".
	{name: "select mode S", mode: "S", lines: []string{"ab", "cd"}, anchor: [2]int{0, 1}, cur: [2]int{1, 0},
		text: "ab\ncd", sl: 0, sc: 0, el: 1, ec: 2},
	// "On every version an invalid byte is a character of its own too, and a
	// composing character after it is the next character."
	{name: "invalid byte", mode: "v", lines: []string{"\xff\u0301a"}, anchor: [2]int{0, 0}, cur: [2]int{0, 0},
		text: "\xff", sl: 0, sc: 0, el: 0, ec: 1},
	{name: "composing after invalid byte", mode: "v", lines: []string{"\xff\u0301a"}, anchor: [2]int{0, 1}, cur: [2]int{0, 1},
		text: "\u0301", sl: 0, sc: 1, el: 0, ec: 3},
	// "with 'selection' set to exclusive, y can leave it out when the
	// selection ends right after it. The selection keeps it."
	{name: "exclusive keeps composing after invalid byte", mode: "v", lines: []string{"\xff\u0301a"}, anchor: [2]int{0, 0}, cur: [2]int{0, 3},
		opts: map[string]any{"selection": "exclusive"}, text: "\xff\u0301", sl: 0, sc: 0, el: 0, ec: 3},
}

func TestEncode(t *testing.T) {
	n := startNvim(t, os.TempDir())
	for _, tc := range encodeCases {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			if opts == nil {
				opts = map[string]any{}
			}
			var got struct {
				Hex       string `json:"hex"`
				Selection struct {
					Start   pos  `json:"start"`
					End     pos  `json:"end"`
					IsEmpty bool `json:"isEmpty"`
				} `json:"selection"`
			}
			// Lines go to Lua as hex: JSON cannot carry invalid bytes.
			var hexLines []string
			for _, l := range tc.lines {
				hexLines = append(hexLines, hex.EncodeToString([]byte(l)))
			}
			n.luaInto(t, &got, `
				local mode, a, c, hl, opts = ...
				local function unhex(h) return (h:gsub('..', function(x) return string.char(tonumber(x, 16)) end)) end
				local lines = {}
				for i, h in ipairs(hl) do lines[i] = unhex(h) end
				local r = require('claude-ide-bridge.selection').encode(mode,
					{line = a[1], col = a[2], off = 0}, {line = c[1], col = c[2], off = 0}, lines, opts)
				r.hex = (r.text:gsub('.', function(ch) return string.format('%02x', ch:byte()) end))
				r.text = nil
				return r`, tc.mode, tc.anchor, tc.cur, hexLines, opts)
			if got.Hex != hex.EncodeToString([]byte(tc.text)) {
				t.Errorf("text %q, want %q", mustUnhex(got.Hex), tc.text)
			}
			want := seltable.Sel("", "", tc.sl, tc.sc, tc.el, tc.ec).Selection
			if got.Selection != want {
				t.Errorf("selection %+v, want %+v", got.Selection, want)
			}
		})
	}
}

func mustUnhex(s string) string {
	b, _ := hex.DecodeString(s)
	return string(b)
}
