package editorstest

import (
	"os"
	"path/filepath"
	"testing"
)

// docs/editors.md "Vim 9": <Leader>cm on a Visual selection of lines 2-3 mentions them; <Leader>cs
// on line 4 selects it. Vim runs headless (-es) with the binding as its whole vimrc.
func TestVimBinding(t *testing.T) {
	vim := need(t, "vim")
	w := newWorld(t, fileName)
	rc := configFile(t, "vimrc", "let mapleader = ','\n"+snippet(t, "vim"))
	w.run(t, vim, "-es", "-N", "-u", rc, "-i", "NONE",
		"-c", `exe "normal 2GVj,cm"`, "-c", `exe "normal 4G,cs"`, "-c", "qa!", w.file)
	w.expect(t, 2, 3, "four")
}

// docs/editors.md "Kakoune": <space>m on lines 2-3 (2g, then J extends a line down), <space>s
// on line 4. Kakoune runs with its dummy UI; a failing command is written where the test sees it.
func TestKakouneBinding(t *testing.T) {
	kak := need(t, "kak")
	w := newWorld(t, fileName)
	rc := configFile(t, "kakrc", snippet(t, "kakoune"))
	errFile := filepath.Join(t.TempDir(), "errors")
	w.run(t, kak, "-n", "-ui", "dummy", "-e",
		"try %{ source '"+rc+"'; execute-keys -with-maps 2gJ<space>m; execute-keys -with-maps 4g<space>s } "+
			"catch %{ nop %sh{ printf '%s' \"$kak_error\" > '"+errFile+"' } }; quit!", w.file)
	if b, err := os.ReadFile(errFile); err == nil {
		t.Fatalf("kakoune: %s", b)
	}
	w.expect(t, 2, 3, "four")
}

// docs/editors.md "Emacs": C-c c m with the region over lines 2-3 (ending at the start of line 4,
// which is not part of it), C-c c s on line 4.
func TestEmacsBinding(t *testing.T) {
	emacs := need(t, "emacs")
	w := newWorld(t, fileName)
	initEl := configFile(t, "init.el", snippet(t, "emacs"))
	w.run(t, emacs, "--batch", "-Q", "-l", initEl, w.file, "--eval", `(progn
  (transient-mark-mode 1)
  (goto-char (point-min)) (forward-line 1) (set-mark (point)) (forward-line 2) (activate-mark)
  (call-interactively (key-binding (kbd "C-c c m")))
  (deactivate-mark)
  (goto-char (point-min)) (forward-line 3)
  (call-interactively (key-binding (kbd "C-c c s"))))`)
	w.expect(t, 2, 3, "four")
}

// configFile writes an editor's configuration file name, text and a line break, in a new
// temporary folder and returns its path.
func configFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
