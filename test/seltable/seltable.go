// Package seltable is the spec's selection table, the one table the Neovim and Vim suites run
// (Emacs's suite picks its rows by name): a buffer, options, keys typed from the top left, and
// the selection_changed payload Claude must get.
package seltable

// Selection is the payload of selection_changed and of getCurrentSelection.
type Selection struct {
	Text      string `json:"text"`
	FilePath  string `json:"filePath"`
	Selection struct {
		Start   Pos  `json:"start"`
		End     Pos  `json:"end"`
		IsEmpty bool `json:"isEmpty"`
	} `json:"selection"`
}

// Pos is a 0-based position; Character counts UTF-8 bytes, as the Neovim and Vim clients send.
type Pos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Sel is the Selection of text in path from (sl, sc) to (el, ec), empty when they are equal.
func Sel(path, text string, sl, sc, el, ec int) Selection {
	var s Selection
	s.Text, s.FilePath = text, path
	s.Selection.Start, s.Selection.End = Pos{sl, sc}, Pos{el, ec}
	s.Selection.IsEmpty = sl == el && sc == ec
	return s
}

// Case is one row (or paragraph) of the table.
type Case struct {
	Name    string
	Content string
	Setup   string // Ex command run before the keys
	Keys    string // in Neovim's key notation ("l<C-v>j")
	Want    func(path string) Selection
	// Since/Before limit a case to Neovim versions [Since, Before) as minor versions of 0.x
	// (0 = no limit). Vim 9.0 counts characters as Neovim before 0.11 does (byteidx: a code
	// point with its composing characters, no grapheme clusters), so a case "since 11" is not
	// Vim's.
	Since, Before int
}

// Skip reports whether the case does not apply to Neovim 0.minor.
func (c Case) Skip(minor int) bool {
	return (c.Since != 0 && minor < c.Since) || (c.Before != 0 && minor >= c.Before)
}

// Spec (Selection Updates): "line is 0-based. character is a 0-based UTF-8
// byte offset into the buffer line ... end is exclusive: it is the offset just
// after the last selected character."
var Cases = []Case{
	// "None (cursor only) | the cursor | the same as start, with isEmpty: true | """
	{Name: "cursor only", Content: "hello world\n", Keys: "w",
		Want: func(p string) Selection { return Sel(p, "", 0, 6, 0, 6) }},
	// "In 日本語, the position after 本 is character 6 here and 2 in VS Code."
	{Name: "cursor after multibyte", Content: "日本語\n", Keys: "ll",
		Want: func(p string) Selection { return Sel(p, "", 0, 6, 0, 6) }},

	// "Charwise (v) | the first selected byte | after the last selected character"
	{Name: "charwise multibyte", Content: "日本語 abc\n", Keys: "lvl",
		Want: func(p string) Selection { return Sel(p, "本語", 0, 3, 0, 9) }},
	{Name: "charwise across lines", Content: "abc\ndef\n", Keys: "lvj",
		Want: func(p string) Selection { return Sel(p, "bc\nde", 0, 1, 1, 2) }},
	{Name: "charwise backwards", Content: "abc\ndef\n", Keys: "jlvk",
		Want: func(p string) Selection { return Sel(p, "bc\nde", 0, 1, 1, 2) }},

	// "v$ | ... | character 0 of the next line ... the selected text with the
	// line break that Neovim's y includes."
	{Name: "v$ mid buffer", Content: "abc\ndef\n", Keys: "lv$",
		Want: func(p string) Selection { return Sel(p, "bc\n", 0, 1, 1, 0) }},
	// "On the buffer's last line ...: the line's byte length ... no line break"
	{Name: "v$ last line", Content: "abc\ndef\n", Keys: "jlv$",
		Want: func(p string) Selection { return Sel(p, "ef", 1, 1, 1, 3) }},
	// "or with 'virtualedit' containing all: the line's byte length ... With
	// all, Neovim's y also adds the spaces of the virtual columns, which the
	// text leaves out"
	{Name: "v$ virtualedit=all", Content: "abc\ndef\n", Setup: "set virtualedit=all", Keys: "lv$",
		Want: func(p string) Selection { return Sel(p, "bc", 0, 1, 0, 3) }},
	{Name: "v on empty line mid buffer", Content: "a\n\nb\n", Keys: "jv",
		Want: func(p string) Selection { return Sel(p, "\n", 1, 0, 2, 0) }},
	// "or character 1 on an empty line"
	{Name: "v$ empty last line", Content: "abc\n\n", Keys: "jv$",
		Want: func(p string) Selection { return Sel(p, "", 1, 0, 1, 1) }},
	{Name: "v$ empty line virtualedit=all", Content: "\nx\n", Setup: "set virtualedit=all", Keys: "v$",
		Want: func(p string) Selection { return Sel(p, "", 0, 0, 0, 1) }},

	// "Linewise (V) | character 0 of the first line | the last selected line,
	// at its byte length | the lines joined by \n"
	{Name: "linewise", Content: "abc\ndef\nghi\n", Keys: "Vj",
		Want: func(p string) Selection { return Sel(p, "abc\ndef", 0, 0, 1, 3) }},
	{Name: "linewise last line", Content: "abc\ndef\n", Keys: "jV",
		Want: func(p string) Selection { return Sel(p, "def", 1, 0, 1, 3) }},
	// "If that line is empty: character 0 of the next line ... When the end
	// moves to the next line, also the empty line's line break"
	{Name: "linewise ending on empty line", Content: "abc\n\nx\n", Keys: "Vj",
		Want: func(p string) Selection { return Sel(p, "abc\n\n", 0, 0, 2, 0) }},
	// "or character 1 of the empty line when it is the buffer's last line"
	{Name: "linewise empty last line", Content: "abc\n\n", Keys: "Vj",
		Want: func(p string) Selection { return Sel(p, "abc\n", 0, 0, 1, 1) }},

	// "Blockwise (Ctrl-V) | as charwise | ... the contiguous span from the
	// block's first position to its last, not the rectangle"
	{Name: "blockwise", Content: "abcd\nefgh\nij\n", Keys: "l<C-v>jl",
		Want: func(p string) Selection { return Sel(p, "bcd\nefg", 0, 1, 1, 3) }},
	// "an end past the last character stays at the line's byte length" (the
	// cursor sits on the line end of "ef", so the block starts at column 2)
	{Name: "blockwise end past last char", Content: "abcd\nef\n", Keys: "3l<C-v>j",
		Want: func(p string) Selection { return Sel(p, "cd\nef", 0, 2, 1, 2) }},
	{Name: "blockwise bottom row shorter", Content: "abcd\nef\n", Keys: "j<C-v>k3l",
		Want: func(p string) Selection { return Sel(p, "abcd\nef", 0, 0, 1, 2) }},
	// "and an end on an empty row is character 1"
	{Name: "blockwise end on empty row", Content: "abc\n\n", Keys: "l<C-v>j",
		Want: func(p string) Selection { return Sel(p, "abc\n", 0, 0, 1, 1) }},
	{Name: "blockwise $", Content: "ab\ncdef\n", Keys: "<C-v>j$",
		Want: func(p string) Selection { return Sel(p, "ab\ncdef", 0, 0, 1, 4) }},
	{Name: "blockwise wide characters", Content: "日本語\nabcdef\n", Keys: "l<C-v>j",
		Want: func(p string) Selection { return Sel(p, "本語\nabcd", 0, 3, 1, 4) }},

	// "With 'selection' set to exclusive, a charwise or blockwise Selection of
	// more than one position ends after the character before its end position."
	{Name: "exclusive charwise", Content: "abcdef\n", Setup: "set selection=exclusive", Keys: "vll",
		Want: func(p string) Selection { return Sel(p, "ab", 0, 0, 0, 2) }},
	{Name: "exclusive one position", Content: "abcdef\n", Setup: "set selection=exclusive", Keys: "v",
		Want: func(p string) Selection { return Sel(p, "a", 0, 0, 0, 1) }},
	{Name: "exclusive v$", Content: "abc\ndef\n", Setup: "set selection=exclusive", Keys: "lv$",
		Want: func(p string) Selection { return Sel(p, "bc", 0, 1, 0, 3) }},
	{Name: "exclusive blockwise", Content: "abcd\nefgh\n", Setup: "set selection=exclusive", Keys: "<C-v>jll",
		Want: func(p string) Selection { return Sel(p, "abcd\nef", 0, 0, 1, 2) }},
	// "A block whose last row is empty still ends at character 1 of that row."
	{Name: "exclusive blockwise empty last row", Content: "abc\n\n", Setup: "set selection=exclusive", Keys: "l<C-v>j",
		Want: func(p string) Selection { return Sel(p, "abc\n", 0, 0, 1, 1) }},

	// "Select mode (gh, or v, V and Ctrl-V when 'selectmode' contains cmd)
	// uses the same encoding as the Visual mode of the same type."
	{Name: "select mode gh", Content: "abc\n", Keys: "gh<Right>",
		Want: func(p string) Selection { return Sel(p, "ab", 0, 0, 0, 2) }},
	{Name: "select mode gH", Content: "abc\ndef\n", Keys: "gH<Down>",
		Want: func(p string) Selection { return Sel(p, "abc\ndef", 0, 0, 1, 3) }},
	{Name: "select mode g Ctrl-H", Content: "abcd\nefgh\n", Keys: "lg<C-h><Down><Right>",
		Want: func(p string) Selection { return Sel(p, "bcd\nefg", 0, 1, 1, 3) }},
	{Name: "selectmode=cmd v", Content: "abc\n", Setup: "set selectmode=cmd", Keys: "v<Right>",
		Want: func(p string) Selection { return Sel(p, "ab", 0, 0, 0, 2) }},

	// "A character is what Neovim's y takes as one: a code point with its
	// composing characters"
	{Name: "composing character", Content: "e\u0301x\n", Keys: "v",
		Want: func(p string) Selection { return Sel(p, "e\u0301", 0, 0, 0, 3) }},
	// "and on Neovim 0.11+ a grapheme cluster. There, a control such as a TAB
	// ... is a character of its own, and a composing character after it is the
	// next character." Before 0.11 the composing character joins the TAB.
	{Name: "TAB with composing before 0.11", Content: "\t\u0301a\n", Keys: "v", Before: 11,
		Want: func(p string) Selection { return Sel(p, "\t\u0301", 0, 0, 0, 3) }},
	{Name: "TAB with composing since 0.11", Content: "\t\u0301a\n", Keys: "v", Since: 11,
		Want: func(p string) Selection { return Sel(p, "\t", 0, 0, 0, 1) }},
	// "On every version an invalid byte is a character of its own too" (JSON
	// carries it as U+FFFD; the offsets count the byte).
	{Name: "invalid byte", Content: "\xff\u0301a\n", Keys: "v",
		Want: func(p string) Selection { return Sel(p, "\ufffd", 0, 0, 0, 1) }},
	// "Before 0.11 the cursor can skip such a composing character, and with
	// 'selection' set to exclusive, y can leave it out when the Selection ends
	// right after it. The Selection keeps it." (A single l does not move off
	// the invalid byte here; 2l lands on the "a".)
	{Name: "exclusive keeps composing after invalid byte", Content: "\xff\u0301a\n", Setup: "set selection=exclusive", Keys: "v2l", Before: 11,
		Want: func(p string) Selection { return Sel(p, "\ufffd\u0301", 0, 0, 0, 3) }},
}
