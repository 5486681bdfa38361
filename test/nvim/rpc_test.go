package nvimtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

// encode_pieces (the accept's path for a proposal's text, issue 14 item 2):
// the buffer lines joined by "\n" (and a final "\n" with 'eol') as a JSON
// string between prefix and suffix, one message line, handed to chansend in
// pieces. The rules are those of every string sent: valid UTF-8 as is, each
// invalid byte U+FFFD, and the escapes JSON needs; a NUL of the file
// (Neovim's "\n" in a line) stays NUL. Line lengths around 8 cover the
// eight-bytes-at-a-time check and its tail. Each case runs whole (one piece)
// and cut small (pieces of a few bytes, lines read two at a time), so that
// every line boundary is also a piece and a read boundary.
func TestEncodeLines(t *testing.T) {
	n := startNvim(t, os.TempDir())
	if n.str(t, `return tostring(require("claude-ide-bridge.rpc")._encode_lines('', {}, false, '') ~= nil)`) != "true" {
		t.Skip("no LuaJIT FFI in this Neovim: the accept sends through lua-cjson")
	}
	cases := []struct {
		lines string // a Lua table literal
		eol   bool
		want  string
	}{
		{`{""}`, false, ""},
		{`{""}`, true, "\n"},
		{`{"abcdefg", "abcdefgh", "abcdefghi", ""}`, true, "abcdefg\nabcdefgh\nabcdefghi\n\n"},
		{`{"say \"hi\"", "C:\\dir\\", "\tindented"}`, true, "say \"hi\"\nC:\\dir\\\n\tindented\n"},
		{`{"abcdefgh\"", "abcdefghijklmnop\\x", "abcdefgh\1\31\127"}`, false, "abcdefgh\"\nabcdefghijklmnop\\x\nabcdefgh\x01\x1f\x7f"},
		{`{"h\195\169llo \226\156\187", "abcdefgh\255", "\128ok"}`, true, "h\u00e9llo \u273b\nabcdefgh\ufffd\n\ufffdok\n"},
		{`{"a\nb", "</script>"}`, true, "a\x00b\n</script>\n"},
		{`{"crlf\r", "end\r"}`, false, "crlf\r\nend\r"},
		// Escapes outgrow the first buffer (sized for the raw text): it must grow, keeping what it holds.
		{`{("\1"):rep(60), ("\""):rep(30), "end"}`, false, strings.Repeat("\x01", 60) + "\n" + strings.Repeat(`"`, 30) + "\nend"},
		{`{("\1"):rep(5000), ("x"):rep(9000)}`, true, strings.Repeat("\x01", 5000) + "\n" + strings.Repeat("x", 9000) + "\n"},
	}
	out := filepath.Join(t.TempDir(), "message")
	for _, c := range cases {
		for _, cut := range []struct{ piece, atOnce int }{{0, 0}, {5, 2}} {
			// The message goes through a file: --remote-expr's answer is cut short on 0.7.2.
			var sizes []int
			n.luaInto(t, &sizes, `local lines, eol, piece, at_once, out = ...
				if piece == 0 then piece, at_once = nil, nil end
				local pieces = require("claude-ide-bridge.rpc")._encode_lines('{"id":1,"text":', loadstring("return " .. lines)(), eol, '}', piece, at_once)
				local f = assert(io.open(out, "wb"))
				f:write(table.concat(pieces))
				f:close()
				local sizes = {}
				for i, p in ipairs(pieces) do sizes[i] = #p end
				return sizes`,
				c.lines, c.eol, cut.piece, cut.atOnce, out)
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			line := string(b)
			if !strings.HasSuffix(line, "}\n") || strings.Count(line, "\n") != 1 {
				t.Errorf("encode_lines(%s) is not one message line: %.200q", c.lines, line)
				continue
			}
			for i, size := range sizes[:len(sizes)-1] {
				if cut.piece > 0 && size < cut.piece {
					t.Errorf("encode_lines(%s): piece %d of %d is %d bytes, want at least %d", c.lines, i, len(sizes), size, cut.piece)
				}
			}
			var msg struct {
				ID   int    `json:"id"`
				Text string `json:"text"`
			}
			if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.ID != 1 || msg.Text != c.want {
				t.Errorf("encode_lines(%s, eol %v, cut %v) = %.300q (%v), want the text %.300q", c.lines, c.eol, cut, line, err, c.want)
			}
		}
	}
}
