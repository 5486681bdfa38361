package emacstest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// emacs is an interactive `emacs -nw` in a tmux session, loading the package and running
// claude-ide-bridge-mode, with a server that emacsclient evaluates Lisp through.
type emacs struct {
	tmux, tsock   string // tmux binary and socket
	client, esock string // emacsclient binary and Emacs's server socket
	dir           string // where Emacs started; emacsclient runs there (its default-directory)
}

// world is a project, an Emacs in it, and (when dialled) a Claude client of its bridge.
type world struct {
	proj, cfg string
	e         *emacs
	c         *probe.Client
}

// lispQuote returns s as a Lisp string literal.
func lispQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// noNativeComp turns off Emacs 29+'s compiling of Lisp to native code at run time: the newest
// Emacs comes unpacked from Debian sid without the C compiler's files (scripts/newest-emacs), and
// compiling would only slow the tests. Emacs 28 ignores the variables.
const noNativeComp = `(setq native-comp-jit-compilation nil native-comp-deferred-compilation nil
        native-comp-enable-subr-trampolines nil)`

// startEmacs runs Emacs in dir with env (KEY=VALUE) added, evaluating setup after the mode's
// options are set and before the mode starts.
func startEmacs(t *testing.T, dir string, env []string, setup string) *emacs {
	t.Helper()
	emacsPath := needEmacs(t)
	e := &emacs{tmux: harness.Need(t, "tmux", "the interactive Emacs"), client: "emacsclient", dir: dir}
	if c := filepath.Join(filepath.Dir(emacsPath), "emacsclient"); fileExists(c) {
		e.client = c
	}
	harness.Need(t, e.client, "the interactive Emacs")
	sockDir, err := os.MkdirTemp("", "emt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	os.Chmod(sockDir, 0o700)
	e.tsock, e.esock = filepath.Join(sockDir, "tmux"), filepath.Join(sockDir, "server")
	init := `(progn
  ` + noNativeComp + `
  (setq server-socket-dir ` + lispQuote(sockDir) + ` server-name "server"
        inhibit-startup-screen t make-backup-files nil auto-save-default nil create-lockfiles nil)
  (server-start)
  (load ` + lispQuote(pkgFile) + ` nil t)
  (setq claude-ide-bridge-program ` + lispQuote(bridgeBin) + `)
  ` + setup + `
  (claude-ide-bridge-mode 1))`
	initFile := filepath.Join(sockDir, "init.el")
	os.WriteFile(initFile, []byte(init), 0o644)
	var sh strings.Builder
	sh.WriteString("#!/bin/sh\n")
	sh.WriteString(harness.ShellExports(append(os.Environ(), append([]string{"TERM=xterm-256color", "LANG=C.UTF-8"}, env...)...), "TMUX"))
	sh.WriteString("cd " + termtext.ShellQuote(dir) + "\nexec " + termtext.ShellQuote(emacsPath) + " -nw -Q -l " + termtext.ShellQuote(initFile) + " 2>" + termtext.ShellQuote(filepath.Join(sockDir, "stderr")) + "\n")
	script := filepath.Join(sockDir, "run")
	os.WriteFile(script, []byte(sh.String()), 0o755)
	e.tm(t, "new-session", "-d", "-x", "160", "-y", "45", script)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screen:\n%s", e.screen(t))
			if out, err := e.try(`(with-current-buffer (get-buffer-create "*Messages*") (buffer-string))`); err == nil {
				t.Logf("*Messages*:\n%s", out)
			}
		}
		// kill-emacs ends the bridge (EOF on its stdin) and waits for it; then tmux goes.
		e.try(`(run-at-time 0 nil #'kill-emacs)`)
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if exec.Command(e.tmux, "-S", e.tsock, "has-session").Run() != nil {
				break
			}
		}
		exec.Command(e.tmux, "-S", e.tsock, "kill-server").Run()
	})
	if !harness.Poll(testbin.Bound, func() bool {
		out, err := e.try(`(and (claude-ide-bridge--ready-p) t)`)
		return err == nil && out == "t"
	}) {
		b, _ := os.ReadFile(filepath.Join(sockDir, "stderr"))
		t.Fatalf("Emacs's bridge did not get ready; stderr %s\nscreen:\n%s", b, e.screen(t))
	}
	return e
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func (e *emacs) tm(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(e.tmux, append([]string{"-S", e.tsock}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("tmux %v: %v %s", args, err, out)
	}
	return string(out)
}

// keys types tmux key names (C-f, M-f, C-Space, Escape, a) into Emacs.
func (e *emacs) keys(t *testing.T, keys ...string) {
	t.Helper()
	e.tm(t, append([]string{"send-keys", "-t", "0"}, keys...)...)
}

func (e *emacs) screen(t *testing.T) string {
	out, _ := exec.Command(e.tmux, "-S", e.tsock, "capture-pane", "-p", "-t", "0").CombinedOutput()
	return string(out)
}

// try evaluates expr in Emacs and returns what emacsclient prints.
func (e *emacs) try(expr string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), testbin.Bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.client, "-s", e.esock, "--eval", expr)
	cmd.Dir = e.dir
	out, err := cmd.CombinedOutput()
	s := strings.TrimRight(string(out), "\n")
	if err != nil {
		return s, &evalError{expr, s, err}
	}
	return s, nil
}

type evalError struct {
	expr, out string
	err       error
}

func (x *evalError) Error() string {
	return "emacsclient --eval " + x.expr + ": " + x.err.Error() + ": " + x.out
}

// eval evaluates expr and fails the test on an error.
func (e *emacs) eval(t *testing.T, expr string) string {
	t.Helper()
	out, err := e.try(expr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// value evaluates expr in Emacs and decodes its JSON (json-serialize) into v; the JSON goes
// through a file, so no printed Lisp has to be read back.
func (e *emacs) value(t *testing.T, v any, expr string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "v.json")
	e.eval(t, `(let ((coding-system-for-write 'utf-8-unix))
	  (with-temp-file `+lispQuote(f)+` (insert (json-serialize (vector `+expr+`)))) nil)`)
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var arr []json.RawMessage
	if err := json.Unmarshal(data, &arr); err != nil || len(arr) != 1 {
		t.Fatalf("%s: %s: %v", expr, data, err)
	}
	if err := json.Unmarshal(arr[0], v); err != nil {
		t.Fatalf("%s: %s: %v", expr, data, err)
	}
}

// str evaluates expr, a Lisp string.
func (e *emacs) str(t *testing.T, expr string) string {
	t.Helper()
	var s string
	e.value(t, &s, expr)
	return s
}

// waitEval polls expr until it prints want.
func (e *emacs) waitEval(t *testing.T, want, expr string) {
	t.Helper()
	var last string
	if !harness.Poll(testbin.Bound, func() bool { last, _ = e.try(expr); return last == want }) {
		t.Fatalf("waiting for %s\n want %s\n last %s", expr, want, last)
	}
}

// newWorld starts Emacs in a fresh project and, with connect, a Claude client.
func newWorld(t *testing.T, setup string, connect bool) *world {
	t.Helper()
	d := harness.Dirs(t, "proj", "cfg", "home")
	w := &world{proj: d[0], cfg: d[1]}
	w.e = startEmacs(t, w.proj, []string{"CLAUDE_CONFIG_DIR=" + w.cfg, "HOME=" + d[2]}, setup)
	if connect {
		w.dial(t)
	}
	return w
}

// connectedExpr is how many clients Emacs was told are connected (clientConnected's agents).
const connectedExpr = `(cl-loop for (_ n) on claude-ide-bridge--agents by #'cddr sum n)`

// dial connects a Claude client through the lock file and waits until Emacs counts it.
func (w *world) dial(t *testing.T) {
	t.Helper()
	before, _ := strconv.Atoi(w.e.eval(t, connectedExpr))
	var names []string
	harness.Poll(testbin.Bound, func() bool { names, _ = filepath.Glob(filepath.Join(w.cfg, "ide", "*.lock")); return len(names) == 1 })
	if len(names) != 1 {
		t.Fatalf("lock files %v", names)
	}
	data, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		AuthToken string `json:"authToken"`
	}
	json.Unmarshal(data, &lock)
	port, _ := strconv.Atoi(strings.TrimSuffix(filepath.Base(names[0]), ".lock"))
	c, _, err := probe.Dial(testbin.CtxFor(t, testbin.Bound), port, lock.AuthToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Handshake(testbin.CtxFor(t, testbin.Bound)); err != nil {
		t.Fatal(err)
	}
	w.c = c
	w.e.waitEval(t, strconv.Itoa(before+1), connectedExpr)
}

// file writes a file in the project and returns its path.
func (w *world) file(t *testing.T, name, content string) string {
	t.Helper()
	return testbin.WriteFile(t, w.proj, name, content)
}

// visit shows path in the selected window with point at its start and no region.
func (w *world) visit(t *testing.T, path string) {
	t.Helper()
	w.e.eval(t, `(progn (switch-to-buffer (let ((coding-system-for-read 'utf-8-unix)) (find-file-noselect `+lispQuote(path)+`)))
	  (rectangle-mark-mode -1) (deactivate-mark) (goto-char (point-min)) (setq last-command nil) nil)`)
}
