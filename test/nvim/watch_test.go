package nvimtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// Issue 14: "When a file that is loaded in a Neovim buffer changes on disk ...
// an unmodified buffer shows the new text within a second, with no keypress,
// cursor and view kept where they can be. A buffer with unsaved changes is
// never overwritten: the user gets one clear warning naming the file."

// watchEnv is newEnv plus a record, inside Neovim, of every warning and of the
// time (Neovim's monotonic clock) of every buffer read.
func watchEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, nil, false)
	e.n.lua(t, `_G.NVT_notes, _G.NVT_reads = {}, {}
		local orig = vim.notify
		vim.notify = function(msg, level, o)
			table.insert(_G.NVT_notes, msg)
			return orig(msg, level, o)
		end
		vim.api.nvim_create_autocmd("BufReadPost", { callback = function(ev)
			local name = vim.api.nvim_buf_get_name(ev.buf)
			_G.NVT_reads[name] = (vim.uv or vim.loop).hrtime()
		end })`)
	return e
}

// now is Neovim's monotonic clock in ns: taken before a write, it bounds the
// write's time from below.
func (e *env) now(t *testing.T) int64 {
	var ns int64
	e.n.luaInto(t, &ns, `return (vim.uv or vim.loop).hrtime()`)
	return ns
}

// bufLines is the text of path's buffer, lines joined with "\n".
func (e *env) bufLines(t *testing.T, path string) string {
	t.Helper()
	return e.n.str(t, `local b = require("claude-ide-bridge.files").find(...)
		return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n")`, path)
}

// warnings are the warnings shown so far that mention s.
func (e *env) warnings(t *testing.T, s string) []string {
	t.Helper()
	all := e.n.str(t, `return table.concat(_G.NVT_notes, "\0")`)
	var out []string
	for _, m := range strings.Split(all, "\x00") {
		if strings.Contains(m, s) {
			out = append(out, m)
		}
	}
	return out
}

// waitReload waits (no input is sent) until path's buffer shows want, then
// asserts that it was read again within 1 s of since.
func (e *env) waitReload(t *testing.T, path, want string, since int64) {
	t.Helper()
	if !poll(func() bool { return e.bufLines(t, path) == want }) {
		t.Fatalf("buffer of %s shows %q, want %q", path, e.bufLines(t, path), want)
	}
	var at int64
	e.n.luaInto(t, &at, `return _G.NVT_reads[...] or 0`, path)
	if d := time.Duration(at - since); at == 0 || d > time.Second {
		t.Errorf("buffer of %s reloaded %v after the write, want within 1 s", path, d)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWatchReloadsUnmodifiedBuffer(t *testing.T) {
	e, path := watchedFile(t, "a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n")
	// Two windows on the file, cursors on different lines.
	e.n.ex(t, "split")
	e.n.lua(t, `vim.api.nvim_win_set_cursor(0, {6, 0})`)
	e.n.ex(t, "wincmd w")
	e.n.lua(t, `vim.api.nvim_win_set_cursor(0, {3, 0})`)
	t0 := e.now(t)
	writeFile(t, path, "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n")
	e.waitReload(t, path, "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight", t0)
	var cursors []int
	e.n.luaInto(t, &cursors, `local out = {}
		for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do out[#out+1] = vim.api.nvim_win_get_cursor(w)[1] end
		table.sort(out) return out`)
	if len(cursors) != 2 || cursors[0] != 3 || cursors[1] != 6 {
		t.Errorf("cursor lines after the reload: %v, want [3 6]", cursors)
	}
	if e.n.str(t, `return tostring(vim.bo.modified)`) != "false" {
		t.Error("reloaded buffer is modified")
	}
	if n := e.warnings(t, "a.txt"); len(n) != 0 {
		t.Errorf("warnings for an unmodified buffer: %q", n)
	}
}

// An atomic write (temporary file renamed over the target) replaces the inode;
// the buffer still follows, also for the second write.
func TestWatchAtomicRename(t *testing.T) {
	e, path := watchedFile(t, "r.txt", "old\n")
	for i, text := range []string{"first", "second"} {
		tmp := filepath.Join(e.proj, ".r.txt.tmp")
		writeFile(t, tmp, text+"\n")
		t0 := e.now(t)
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		e.waitReload(t, path, text, t0)
		_ = i
	}
}

// A buffer that is not in any window follows too.
func TestWatchHiddenBuffer(t *testing.T) {
	e := watchEnv(t)
	path := e.file(t, "h.txt", "old\n")
	e.n.lua(t, `local b = vim.fn.bufadd(...) vim.bo[b].buflisted = true vim.fn.bufload(b)`, path)
	e.writeFollowed(t, path, "new")
}

// A buffer opened for a file that does not exist yet shows it once it is created.
func TestWatchNewFile(t *testing.T) {
	e := watchEnv(t)
	path := filepath.Join(e.proj, "sub", "new.txt")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	e.edit(t, path)
	e.writeFollowed(t, path, "created")
}

func TestWatchKeepsModifiedBuffer(t *testing.T) {
	e, path := watchedFile(t, "m.txt", "disk\n")
	e.n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, -1, false, {"mine"})`)
	writeFile(t, path, "claude\n")
	waitFor(t, "the warning", func() bool { return len(e.warnings(t, "m.txt")) > 0 })
	// More events for the same change (touching nothing) bring no second warning.
	time.Sleep(800 * time.Millisecond) // not an assertion: lets late events arrive
	n := e.warnings(t, "m.txt")
	if len(n) != 1 {
		t.Fatalf("warnings naming m.txt: %q, want exactly one", n)
	}
	if !strings.Contains(n[0], "unsaved changes") {
		t.Errorf("warning %q does not say why", n[0])
	}
	if got := e.bufLines(t, path); got != "mine" {
		t.Errorf("modified buffer was overwritten: %q", got)
	}
	if got := harness.FileText(path); got != "claude\n" {
		t.Errorf("file changed behind the write: %q", got)
	}
	// The user takes the disk's version (:e!), edits and saves: their own
	// write is no change on disk to warn about. (Without :e!, Neovim's own
	// "changed since reading" question still guards :w.)
	e.n.ex(t, "edit!")
	e.n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, -1, false, {"mine"})`)
	e.n.ex(t, "write")
	if got := harness.FileText(path); got != "mine\n" {
		t.Fatalf("after :w the file has %q", got)
	}
	time.Sleep(300 * time.Millisecond) // not an assertion: lets the write's events arrive
	if n := e.warnings(t, "m.txt"); len(n) != 1 {
		t.Errorf("warnings after the user's own write: %q", n)
	}
	// Once saved, the buffer follows again.
	e.writeFollowed(t, path, "again")
}

// A deleted file leaves its buffer's text alone and says so once; when the
// file comes back the buffer follows it.
func TestWatchDeletedFile(t *testing.T) {
	e, path := watchedFile(t, "d.txt", "keep\n")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the warning", func() bool { return len(e.warnings(t, "d.txt")) > 0 })
	if n := e.warnings(t, "d.txt"); len(n) != 1 || !strings.Contains(n[0], "deleted") {
		t.Errorf("warnings: %q", n)
	}
	if got := e.bufLines(t, path); got != "keep" {
		t.Errorf("buffer of a deleted file: %q", got)
	}
	e.writeFollowed(t, path, "back")
}

// Scratch buffers and the plugin's own diff buffers are not watched; unloading
// a buffer ends its watch.
func TestWatchOnlyFileBuffers(t *testing.T) {
	e, path := watchedFile(t, "w.txt", "x\n")
	e.n.ex(t, "enew")
	e.n.ex(t, "setlocal buftype=nofile")
	type state struct {
		Files []string          `json:"files"`
		Dirs  map[string]string `json:"dirs"`
	}
	var st state
	e.n.luaInto(t, &st, `return require("claude-ide-bridge.watch").state()`)
	if len(st.Files) != 1 || st.Files[0] != path || st.Dirs[e.proj] != "event" {
		t.Fatalf("watched: %+v", st)
	}
	e.n.ex(t, "bwipeout! "+path)
	st = state{}
	e.n.luaInto(t, &st, `return require("claude-ide-bridge.watch").state()`)
	if len(st.Files) != 0 || len(st.Dirs) != 0 {
		t.Fatalf("still watched after :bwipeout: %+v", st)
	}
}

// watchedFile starts watchEnv with the file name holding text, open in the current window.
func watchedFile(t *testing.T, name, text string) (*env, string) {
	t.Helper()
	e := watchEnv(t)
	path := e.file(t, name, text)
	e.edit(t, path)
	return e, path
}

// writeFollowed writes text and a line break to path, as another program would, and waits
// until its buffer shows text, reloaded after the write.
func (e *env) writeFollowed(t *testing.T, path, text string) {
	t.Helper()
	t0 := e.now(t)
	writeFile(t, path, text+"\n")
	e.waitReload(t, path, text, t0)
}
