package nvimtest

import (
	"os"
	"testing"
)

// The rpc client's framing and text helpers, driven directly in Neovim (no bridge).

// A line split over many on_stdout chunks (as jobstart delivers a big
// message), several lines in one chunk, and a partial line left pending.
func TestRPCChunkedLines(t *testing.T) {
	n := startNvim(t, os.TempDir())
	var got []any
	n.luaInto(t, &got, `local rpc = require("claude-ide-bridge.rpc")
		local seen = {}
		local c = rpc.new({ note = function(p) seen[#seen + 1] = p.v end })
		local big = string.rep("abc", 100000)
		local line = vim.json.encode({ jsonrpc = "2.0", method = "note", params = { v = big } })
		-- the big line in 1000-byte pieces, its end together with a whole small line and half a third
		local i = 1
		while i + 1000 <= #line do
			c:on_stdout({ line:sub(i, i + 999) })
			i = i + 1000
		end
		c:on_stdout({ line:sub(i), '{"jsonrpc":"2.0","method":"note","params":{"v":"small"}}', '{"jsonrpc":"2.0","meth' })
		c:on_stdout({ 'od":"note","params":{"v":"last"}}', "" })
		return { #seen, seen[1] == big, seen[2], seen[3] }`)
	if len(got) != 4 || got[0] != float64(3) || got[1] != true || got[2] != "small" || got[3] != "last" {
		t.Fatalf("messages seen: %v", got)
	}
}

// files.split: lines and whether the text ended with a line break, as the
// buffer's 'eol' wants it.
func TestFilesSplit(t *testing.T) {
	n := startNvim(t, os.TempDir())
	for _, c := range []struct {
		in    string
		lines []string
		eol   bool
	}{
		{"", []string{""}, false},
		{"a", []string{"a"}, false},
		{"a\n", []string{"a"}, true},
		{"\n", []string{""}, true},
		{"a\nb", []string{"a", "b"}, false},
		{"a\n\n", []string{"a", ""}, true},
		{"\n\n", []string{"", ""}, true},
	} {
		var got struct {
			Lines []string `json:"lines"`
			EOL   bool     `json:"eol"`
		}
		n.luaInto(t, &got, `local l, e = require("claude-ide-bridge.files").split(...) return { lines = l, eol = e }`, c.in)
		if len(got.Lines) != len(c.lines) || got.EOL != c.eol {
			t.Errorf("split(%q) = %q, %v; want %q, %v", c.in, got.Lines, got.EOL, c.lines, c.eol)
			continue
		}
		for i := range c.lines {
			if got.Lines[i] != c.lines[i] {
				t.Errorf("split(%q) = %q; want %q", c.in, got.Lines, c.lines)
			}
		}
	}
}

// valid_utf8: ASCII comes back as is (the fast path), every byte of invalid
// UTF-8 becomes U+FFFD, also past the first 8-byte word and in the tail.
func TestValidUTF8(t *testing.T) {
	n := startNvim(t, os.TempDir())
	// Inputs are Lua string literals: JSON cannot carry invalid UTF-8 to Lua.
	for in, want := range map[string]string{
		`""`:                        "",
		`"plain ascii, 21 bytes"`:   "plain ascii, 21 bytes",
		`"h\195\169llo"`:            "h\u00e9llo",
		`"abcdefgh\255"`:            "abcdefgh\ufffd",
		`"abcdefghijklmno\195"`:     "abcdefghijklmno\ufffd",
		`"\226\130"`:                "\ufffd\ufffd",
		`"\128abcdefghijklmnopqrs"`: "\ufffdabcdefghijklmnopqrs",
	} {
		got := n.str(t, `return require("claude-ide-bridge.rpc").valid_utf8(loadstring("return " .. ...)())`, in)
		if got != want {
			t.Errorf("valid_utf8(%s) = %q, want %q", in, got, want)
		}
	}
}
