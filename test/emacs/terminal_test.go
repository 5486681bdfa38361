package emacstest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// fakeClaude writes a script that records its arguments, working directory and the bridge's
// environment variables into out, then waits.
// regexpQuote quotes s for an Emacs regexp.
func regexpQuote(s string) string {
	return strings.NewReplacer(".", `\.`, "*", `\*`, "+", `\+`, "?", `\?`, "[", `\[`, "^", `\^`, "$", `\$`).Replace(s)
}

func fakeClaude(t *testing.T, out string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "claude")
	os.WriteFile(p, []byte(`#!/bin/sh
{ for a in "$@"; do echo "arg=$a"; done
  echo "cwd=$(pwd)"; echo "port=$CLAUDE_CODE_SSE_PORT"; echo "ide=$ENABLE_IDE_INTEGRATION"; echo "no_proxy=$no_proxy"
} > `+termtext.ShellQuote(out)+`.tmp && mv `+termtext.ShellQuote(out)+`.tmp `+termtext.ShellQuote(out)+`
echo FAKE CLAUDE READY
exec sleep 60
`), 0o755)
	return p
}

// Issue 30: "claude-ide-bridge-claude starts claude with the bridge's environment in eat or
// vterm when installed, else ansi-term, with the arguments and permission mode rules the Neovim
// plugin uses". Without eat or vterm it is term; with Debian's elpa-vterm on load-path, `auto`
// picks vterm. A second call shows the running claude instead of starting another.
func TestClaudeTerminal(t *testing.T) {
	t.Parallel()
	vtermDir, _ := filepath.Glob("/usr/share/emacs/site-lisp/elpa/vterm-*")
	for _, tc := range []struct{ name, setup, mode string }{
		{"term", "(setq claude-ide-bridge-terminal 'auto)", "term-mode"},
		{"vterm", "(setq claude-ide-bridge-terminal 'auto) (add-to-list 'load-path (car (file-expand-wildcards \"/usr/share/emacs/site-lisp/elpa/vterm-*\")))", "vterm-mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "vterm" && len(vtermDir) == 0 {
				harness.Missing(t, "elpa-vterm", "claude in vterm")
			}
			out := filepath.Join(t.TempDir(), "claude.out")
			script := fakeClaude(t, out)
			w := newWorld(t, `(setq claude-ide-bridge-claude-program `+lispQuote(script)+`) `+tc.setup, false)
			path := w.file(t, "a.txt", "a\n")
			w.visit(t, path)
			start := `(with-current-buffer (window-buffer (selected-window)) (claude-ide-bridge-claude) nil)`
			w.e.eval(t, start)
			if !harness.Poll(testbin.Bound, func() bool { _, err := os.Stat(out); return err == nil }) {
				t.Fatalf("claude did not start; screen:\n%s", w.e.screen(t))
			}
			data, _ := os.ReadFile(out)
			got := string(data)
			names, _ := filepath.Glob(filepath.Join(w.cfg, "ide", "*.lock"))
			if len(names) != 1 {
				t.Fatalf("lock files %v", names)
			}
			port := strings.TrimSuffix(filepath.Base(names[0]), ".lock")
			mcp := filepath.Join(w.cfg, "ide", port+".mcp.json")
			settings := filepath.Join(w.cfg, "ide", port+".settings.json")
			want := "arg=--permission-mode\narg=default\narg=--settings\narg=" + settings + "\narg=--mcp-config\narg=" + mcp + "\ncwd=" + w.proj +
				"\nport=" + port + "\nide=true\n"
			if !strings.HasPrefix(got, want) || !strings.Contains(got, "no_proxy=") || !strings.Contains(got, "127.0.0.1") {
				t.Fatalf("claude ran with\n%s\nwant\n%s(no_proxy with 127.0.0.1)", got, want)
			}
			if _, err := strconv.Atoi(port); err != nil {
				t.Fatal(err)
			}
			if mode := w.e.eval(t, `(buffer-local-value 'major-mode (cdr (assoc "claude" claude-ide-bridge--terminals)))`); mode != tc.mode {
				t.Fatalf("claude runs in %s, want %s", mode, tc.mode)
			}
			if side := w.e.eval(t, `(window-parameter (get-buffer-window (cdr (assoc "claude" claude-ide-bridge--terminals))) 'window-side)`); side != "right" {
				t.Fatalf("claude's window side %s, want right", side)
			}
			w.e.eval(t, `(progn (select-window (get-buffer-window (get-file-buffer `+lispQuote(path)+`))) nil)`)
			w.e.eval(t, start)
			// vterm runs claude through a shell command line, term directly: count commands naming it.
			if n := w.e.eval(t, `(length (seq-filter (lambda (p) (string-match-p `+lispQuote(regexpQuote(script))+` (format "%s" (process-command p)))) (process-list)))`); n != "1" {
				t.Fatalf("%s claude processes after a second claude-ide-bridge-claude, want 1", n)
			}
		})
	}
}

// The claude claude-ide-bridge-claude starts is the bridge's claudeCommand answer: a bridge
// built with that Go rule changed (testbin.ChangedRule) gets its changed argv, environment and
// notice into Emacs's terminal.
func TestClaudeFollowsTheBridgesRule(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "claude.out")
	script := fakeClaude(t, out)
	w := newWorld(t, `(setq claude-ide-bridge-program `+lispQuote(testbin.ChangedRule(t))+` claude-ide-bridge-claude-program `+lispQuote(script)+
		` claude-ide-bridge-model-tools nil claude-ide-bridge-terminal 'term)`, false)
	w.e.eval(t, `(progn (claude-ide-bridge-claude '("--resume")) nil)`)
	if !harness.Poll(testbin.Bound, func() bool { _, err := os.Stat(out); return err == nil }) {
		t.Fatalf("claude did not start; screen:\n%s", w.e.screen(t))
	}
	data, _ := os.ReadFile(out)
	names, _ := filepath.Glob(filepath.Join(w.cfg, "ide", "*.lock"))
	if len(names) != 1 {
		t.Fatalf("lock files %v", names)
	}
	port := strings.TrimSuffix(filepath.Base(names[0]), ".lock")
	want := "arg=--permission-mode\narg=default\narg=--settings\narg=" + filepath.Join(w.cfg, "ide", port+".settings.json") +
		"\narg=" + testbin.ChangedArg + "\narg=--resume\ncwd=" + w.proj + "\nport=" + port + "\nide=\nno_proxy=" + testbin.ChangedNoProxy + "\n"
	if string(data) != want {
		t.Errorf("claude ran with\n%s\nwant\n%s", data, want)
	}
	w.e.waitEval(t, "t", `(and (string-match-p `+lispQuote(regexpQuote(testbin.ChangedNotice))+` (with-current-buffer "*Messages*" (buffer-string))) t)`)
}
