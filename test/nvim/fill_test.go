package nvimtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 27: a big text (the old file, the proposal) is put into its diff buffer by Neovim's
// own reader (`:read ++bin`) instead of a Lua split; the buffer must hold exactly what the
// split gives, byte for byte (CRs, a BOM, NULs, invalid UTF-8, no final newline), 'eol' must say
// whether the text ended in a line break, no autocommand of the user's may run, the buffer keeps
// no file name, and the temporary file is gone.
func TestFillReadsTextsAsSplitDoes(t *testing.T) {
	e := newEnv(t, nil, false)
	texts := []string{
		"", "\n", "a", "a\n", "a\nb", "\n\n", "x\r\ny\r\n", "lone\rcr\n", "\ufeffbom first\n",
		"nul\x00byte\n", "bad \xff\xfe utf8\nlatin1 caf\xe9\n", "trailing\n\n\n", "\r\n", "é日本\n",
		"no eol at end", strings.Repeat("long ", 100000) + "\n", "\x00", "a\n\x00\n", "%s #1 <cword>\n",
	}
	dir := t.TempDir()
	for i, text := range texts {
		// The same text from a file on disk, under a name that needs escaping on a command line.
		path := filepath.Join(dir, "old %"+string(rune('a'+i))+" #x.txt")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Fill, File   string // "" when the buffer holds exactly the split's lines
			WantEOL, EOL bool
			FileEOL      bool
			Autocmds     int
			Names        []string
			Tmp          []string
		}
		e.n.luaInto(t, &got, `
			local path = ...
			local f = assert(io.open(path, "rb")); local text = f:read("*a"); f:close() -- bytes as they are
			local files = require("claude-ide-bridge.files")
			vim.o.cpoptions = vim.o.cpoptions .. "f"
			_G.fired = 0
			vim.cmd("autocmd BufReadPre,BufReadPost,FileReadPre,FileReadPost,BufNewFile * lua _G.fired = _G.fired + 1")
			local function new() return vim.api.nvim_create_buf(false, true) end
			-- What set_lines makes of the split (a NUL is kept as memline keeps it).
			local want_buf = new()
			local want, want_eol = files.split(text)
			vim.api.nvim_buf_set_lines(want_buf, 0, -1, false, want)
			want = vim.api.nvim_buf_get_lines(want_buf, 0, -1, false)
			local function differs(buf)
				local got = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
				if #got ~= #want then return ("%d lines, the split %d"):format(#got, #want) end
				for i = 1, #want do
					if got[i] ~= want[i] then return ("line %d: %q, the split %q"):format(i, got[i]:sub(1, 40), want[i]:sub(1, 40)) end
				end
				return ""
			end
			local a, b = new(), new()
			local eol = files.fill(a, text, 0) -- the file reader for any size
			local file_eol = files.fill_from_file(b, path, 0)
			local tmpdir = vim.fn.fnamemodify(vim.fn.tempname(), ":h")
			vim.cmd("autocmd!")
			return {
				WantEOL = want_eol, EOL = eol, FileEOL = file_eol, Fill = differs(a), File = differs(b),
				Autocmds = _G.fired, Names = { vim.api.nvim_buf_get_name(a), vim.api.nvim_buf_get_name(b) },
				Tmp = vim.fn.readdir(tmpdir),
			}`, path)
		if got.Fill != "" || got.EOL != got.WantEOL {
			t.Errorf("text %d %q: fill: %s; eol %v, the split's %v", i, trim(text), got.Fill, got.EOL, got.WantEOL)
		}
		if got.File != "" || got.FileEOL != got.WantEOL {
			t.Errorf("text %d %q: fill_from_file: %s; eol %v, the split's %v", i, trim(text), got.File, got.FileEOL, got.WantEOL)
		}
		if got.Autocmds != 0 {
			t.Errorf("text %d: %d autocommands ran while filling", i, got.Autocmds)
		}
		if got.Names[0] != "" || got.Names[1] != "" {
			t.Errorf("text %d: the filled buffers got names %q", i, got.Names)
		}
		for _, f := range got.Tmp {
			t.Errorf("text %d: %s left in Neovim's temp directory", i, f)
		}
	}
}

func trim(s string) string {
	if len(s) > 30 {
		return s[:30] + "…"
	}
	return s
}
