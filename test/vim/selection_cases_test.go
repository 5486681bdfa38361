package vimtest

// selCase is one row (or paragraph) of the spec's selection table, the same table as the Neovim
// suite's (test/nvim/selection_cases_test.go; TestSameSelectionTable keeps them the same): a
// buffer, options, keys typed from the top left, and the payload Claude must get.
type selCase struct {
	name    string
	content string
	setup   string // Ex command run before the keys
	keys    string
	want    func(path string) selection
	// since/before limit a case to Neovim versions [since, before) as minor versions of 0.x.
	// Vim 9.0 counts characters as Neovim before 0.11 does (byteidx: a code point with its
	// composing characters, no grapheme clusters), so a case "since 11" is not Vim's.
	since, before int
}

// Spec (Selection Updates): "line is 0-based. character is a 0-based UTF-8
// byte offset into the buffer line ... end is exclusive: it is the offset just
// after the last selected character."
var selCases = []selCase{
	// "None (cursor only) | the cursor | the same as start, with isEmpty: true | """
	{name: "cursor only", content: "hello world\n", keys: "w",
		want: func(p string) selection { return sel(p, "", 0, 6, 0, 6) }},
	// "In 日本語, the position after 本 is character 6 here and 2 in VS Code."
	{name: "cursor after multibyte", content: "日本語\n", keys: "ll",
		want: func(p string) selection { return sel(p, "", 0, 6, 0, 6) }},

	// "Charwise (v) | the first selected byte | after the last selected character"
	{name: "charwise multibyte", content: "日本語 abc\n", keys: "lvl",
		want: func(p string) selection { return sel(p, "本語", 0, 3, 0, 9) }},
	{name: "charwise across lines", content: "abc\ndef\n", keys: "lvj",
		want: func(p string) selection { return sel(p, "bc\nde", 0, 1, 1, 2) }},
	{name: "charwise backwards", content: "abc\ndef\n", keys: "jlvk",
		want: func(p string) selection { return sel(p, "bc\nde", 0, 1, 1, 2) }},

	// "v$ | ... | character 0 of the next line ... the selected text with the
	// line break that Neovim's y includes."
	{name: "v$ mid buffer", content: "abc\ndef\n", keys: "lv$",
		want: func(p string) selection { return sel(p, "bc\n", 0, 1, 1, 0) }},
	// "On the buffer's last line ...: the line's byte length ... no line break"
	{name: "v$ last line", content: "abc\ndef\n", keys: "jlv$",
		want: func(p string) selection { return sel(p, "ef", 1, 1, 1, 3) }},
	// "or with 'virtualedit' containing all: the line's byte length ... With
	// all, Neovim's y also adds the spaces of the virtual columns, which the
	// text leaves out"
	{name: "v$ virtualedit=all", content: "abc\ndef\n", setup: "set virtualedit=all", keys: "lv$",
		want: func(p string) selection { return sel(p, "bc", 0, 1, 0, 3) }},
	{name: "v on empty line mid buffer", content: "a\n\nb\n", keys: "jv",
		want: func(p string) selection { return sel(p, "\n", 1, 0, 2, 0) }},
	// "or character 1 on an empty line"
	{name: "v$ empty last line", content: "abc\n\n", keys: "jv$",
		want: func(p string) selection { return sel(p, "", 1, 0, 1, 1) }},
	{name: "v$ empty line virtualedit=all", content: "\nx\n", setup: "set virtualedit=all", keys: "v$",
		want: func(p string) selection { return sel(p, "", 0, 0, 0, 1) }},

	// "Linewise (V) | character 0 of the first line | the last selected line,
	// at its byte length | the lines joined by \n"
	{name: "linewise", content: "abc\ndef\nghi\n", keys: "Vj",
		want: func(p string) selection { return sel(p, "abc\ndef", 0, 0, 1, 3) }},
	{name: "linewise last line", content: "abc\ndef\n", keys: "jV",
		want: func(p string) selection { return sel(p, "def", 1, 0, 1, 3) }},
	// "If that line is empty: character 0 of the next line ... When the end
	// moves to the next line, also the empty line's line break"
	{name: "linewise ending on empty line", content: "abc\n\nx\n", keys: "Vj",
		want: func(p string) selection { return sel(p, "abc\n\n", 0, 0, 2, 0) }},
	// "or character 1 of the empty line when it is the buffer's last line"
	{name: "linewise empty last line", content: "abc\n\n", keys: "Vj",
		want: func(p string) selection { return sel(p, "abc\n", 0, 0, 1, 1) }},

	// "Blockwise (Ctrl-V) | as charwise | ... the contiguous span from the
	// block's first position to its last, not the rectangle"
	{name: "blockwise", content: "abcd\nefgh\nij\n", keys: "l<C-v>jl",
		want: func(p string) selection { return sel(p, "bcd\nefg", 0, 1, 1, 3) }},
	// "an end past the last character stays at the line's byte length" (the
	// cursor sits on the line end of "ef", so the block starts at column 2)
	{name: "blockwise end past last char", content: "abcd\nef\n", keys: "3l<C-v>j",
		want: func(p string) selection { return sel(p, "cd\nef", 0, 2, 1, 2) }},
	{name: "blockwise bottom row shorter", content: "abcd\nef\n", keys: "j<C-v>k3l",
		want: func(p string) selection { return sel(p, "abcd\nef", 0, 0, 1, 2) }},
	// "and an end on an empty row is character 1"
	{name: "blockwise end on empty row", content: "abc\n\n", keys: "l<C-v>j",
		want: func(p string) selection { return sel(p, "abc\n", 0, 0, 1, 1) }},
	{name: "blockwise $", content: "ab\ncdef\n", keys: "<C-v>j$",
		want: func(p string) selection { return sel(p, "ab\ncdef", 0, 0, 1, 4) }},
	{name: "blockwise wide characters", content: "日本語\nabcdef\n", keys: "l<C-v>j",
		want: func(p string) selection { return sel(p, "本語\nabcd", 0, 3, 1, 4) }},

	// "With 'selection' set to exclusive, a charwise or blockwise selection of
	// more than one position ends after the character before its end position."
	{name: "exclusive charwise", content: "abcdef\n", setup: "set selection=exclusive", keys: "vll",
		want: func(p string) selection { return sel(p, "ab", 0, 0, 0, 2) }},
	{name: "exclusive one position", content: "abcdef\n", setup: "set selection=exclusive", keys: "v",
		want: func(p string) selection { return sel(p, "a", 0, 0, 0, 1) }},
	{name: "exclusive v$", content: "abc\ndef\n", setup: "set selection=exclusive", keys: "lv$",
		want: func(p string) selection { return sel(p, "bc", 0, 1, 0, 3) }},
	{name: "exclusive blockwise", content: "abcd\nefgh\n", setup: "set selection=exclusive", keys: "<C-v>jll",
		want: func(p string) selection { return sel(p, "abcd\nef", 0, 0, 1, 2) }},
	// "A block whose last row is empty still ends at character 1 of that row."
	{name: "exclusive blockwise empty last row", content: "abc\n\n", setup: "set selection=exclusive", keys: "l<C-v>j",
		want: func(p string) selection { return sel(p, "abc\n", 0, 0, 1, 1) }},

	// "Select mode (gh, or v, V and Ctrl-V when 'selectmode' contains cmd)
	// uses the same encoding as the Visual mode of the same type."
	{name: "select mode gh", content: "abc\n", keys: "gh<Right>",
		want: func(p string) selection { return sel(p, "ab", 0, 0, 0, 2) }},
	{name: "select mode gH", content: "abc\ndef\n", keys: "gH<Down>",
		want: func(p string) selection { return sel(p, "abc\ndef", 0, 0, 1, 3) }},
	{name: "select mode g Ctrl-H", content: "abcd\nefgh\n", keys: "lg<C-h><Down><Right>",
		want: func(p string) selection { return sel(p, "bcd\nefg", 0, 1, 1, 3) }},
	{name: "selectmode=cmd v", content: "abc\n", setup: "set selectmode=cmd", keys: "v<Right>",
		want: func(p string) selection { return sel(p, "ab", 0, 0, 0, 2) }},

	// "A character is what Neovim's y takes as one: a code point with its
	// composing characters"
	{name: "composing character", content: "e\u0301x\n", keys: "v",
		want: func(p string) selection { return sel(p, "e\u0301", 0, 0, 0, 3) }},
	// "and on Neovim 0.11+ a grapheme cluster. There, a control such as a TAB
	// ... is a character of its own, and a composing character after it is the
	// next character." Before 0.11 the composing character joins the TAB.
	{name: "TAB with composing before 0.11", content: "\t\u0301a\n", keys: "v", before: 11,
		want: func(p string) selection { return sel(p, "\t\u0301", 0, 0, 0, 3) }},
	{name: "TAB with composing since 0.11", content: "\t\u0301a\n", keys: "v", since: 11,
		want: func(p string) selection { return sel(p, "\t", 0, 0, 0, 1) }},
	// "On every version an invalid byte is a character of its own too" (JSON
	// carries it as U+FFFD; the offsets count the byte).
	{name: "invalid byte", content: "\xff\u0301a\n", keys: "v",
		want: func(p string) selection { return sel(p, "\ufffd", 0, 0, 0, 1) }},
	// "Before 0.11 the cursor can skip such a composing character, and with
	// 'selection' set to exclusive, y can leave it out when the selection ends
	// right after it. The selection keeps it." (A single l does not move off
	// the invalid byte here; 2l lands on the "a".)
	{name: "exclusive keeps composing after invalid byte", content: "\xff\u0301a\n", setup: "set selection=exclusive", keys: "v2l", before: 11,
		want: func(p string) selection { return sel(p, "\ufffd\u0301", 0, 0, 0, 3) }},
}
