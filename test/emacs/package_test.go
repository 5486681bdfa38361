package emacstest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permmode"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// batch runs emacs --batch -Q with args in dir and returns its output; it fails the test when
// Emacs exits non-zero.
func batch(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(needEmacs(t), append([]string{"--batch", "-Q", "--eval", noNativeComp}, args...)...)
	cmd.Dir = dir
	// A private HOME: nothing of a run lands in the user's ~/.emacs.d.
	cmd.Env = append(append(os.Environ(), "HOME="+t.TempDir()), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("emacs %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// copyPackage copies the package into a temporary directory (so no .elc lands in the tree).
func copyPackage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(pkgFile)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, filepath.Base(pkgFile)), data, 0o644)
	return dir
}

// Issue 30: "byte-compiling without warnings".
func TestByteCompileClean(t *testing.T) {
	t.Parallel()
	dir := copyPackage(t)
	out := batch(t, dir, nil, "--eval", "(setq byte-compile-error-on-warn t)", "-f", "batch-byte-compile", "claude-ide-bridge.el")
	if _, err := os.Stat(filepath.Join(dir, "claude-ide-bridge.elc")); err != nil || strings.Contains(out, "Warning") {
		t.Fatalf("byte-compile: %v\n%s", err, out)
	}
}

// Issue 30: "`checkdoc` clean" (the tests' file too).
func TestCheckdocClean(t *testing.T) {
	t.Parallel()
	for _, f := range []string{pkgFile, filepath.Join(root, "test", "emacs", "claude-ide-bridge-test.el")} {
		if out := batch(t, filepath.Dir(f), nil, "--eval", `(checkdoc-file "`+filepath.Base(f)+`")`); strings.TrimSpace(out) != "" {
			t.Errorf("checkdoc %s:\n%s", filepath.Base(f), out)
		}
	}
}

// Issue 30: "The package is at most 1,200 lines, because the bridge owns every rule." Issue
// 37's permission questions (their UI: ~95 lines, no rule) took it past that: 1,300 now.
func TestPackageSize(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(pkgFile)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\n")); n > 1300 {
		t.Fatalf("%s has %d lines, more than 1,300", filepath.Base(pkgFile), n)
	}
}

// The ERT tests of the protocol pieces (test/emacs/claude-ide-bridge-test.el), byte-compiled
// as users load it, against this run's bridge.
func TestERT(t *testing.T) {
	t.Parallel()
	dir := copyPackage(t)
	batch(t, dir, nil, "-f", "batch-byte-compile", "claude-ide-bridge.el")
	out := batch(t, dir, []string{"CLAUDE_IDE_BRIDGE_BIN=" + bridgeBin}, "-L", dir,
		"-l", filepath.Join(root, "test", "emacs", "claude-ide-bridge-test.el"), "-f", "ert-run-tests-batch-and-exit")
	if testing.Verbose() {
		t.Log(out)
	}
	// flycheck is Debian's elpa-flycheck (scripts/test installs it).
	if strings.Contains(out, "SKIPPED  cibt-flycheck") && os.Getenv("CLAUDE_IDE_BRIDGE_REQUIRE_EDITORS") == "1" {
		t.Fatal("the flycheck test was skipped: flycheck is not installed (scripts/test installs elpa-flycheck)")
	}
}

// Issue 30: "passing `package-lint` if it can be installed here": Debian's elpa-package-lint
// (scripts/test installs it). Offline, package-lint cannot read GNU ELPA's list, so the test
// gives it GNU ELPA's entry for the one dependency, jsonrpc 1.0.14. package-lint 0.16 (Debian
// 12's) predates Emacs 28's release and warns that depending on Emacs 28 "makes the package
// uninstallable in all released Emacs versions"; that warning alone is accepted.
func TestPackageLint(t *testing.T) {
	t.Parallel()
	dirs, _ := filepath.Glob("/usr/share/emacs/site-lisp/elpa/package-lint-*")
	if len(dirs) == 0 {
		harness.Missing(t, "elpa-package-lint", "the package's lint")
	}
	home := t.TempDir()
	archive := filepath.Join(home, "archives", "gnu")
	os.MkdirAll(archive, 0o755)
	os.WriteFile(filepath.Join(archive, "archive-contents"), []byte(`(1 (jsonrpc . [(1 0 14) nil "JSON-RPC library" single nil]))`), 0o644)
	var loads []string
	more, _ := filepath.Glob("/usr/share/emacs/site-lisp/elpa/let-alist-*")
	for _, d := range append(dirs, more...) {
		loads = append(loads, "-L", d)
	}
	dir := copyPackage(t)
	cmd := exec.Command(needEmacs(t), append(append([]string{"--batch", "-Q", "--eval", noNativeComp}, loads...),
		"--eval", `(progn (require 'package) (setq package-user-dir `+lispQuote(home)+` package-archives '(("gnu" . "https://elpa.gnu.org/packages/"))) (require 'package-lint))`,
		"-f", "package-lint-batch-and-exit", "claude-ide-bridge.el")...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "HOME="+t.TempDir())
	out, _ := cmd.CombinedOutput()
	for _, l := range strings.Split(string(out), "\n") {
		if (strings.Contains(l, ": error:") || strings.Contains(l, ": warning:")) && !strings.Contains(l, "uninstallable in all released Emacs versions") {
			t.Errorf("package-lint: %s", l)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("package-lint output:\n%s", out)
	}
}

// Issue 30: "installable with package-vc-install" (and as a single-file package): package.el
// reads the header (Package-Requires: jsonrpc is built in), installs, byte-compiles and makes
// the autoloads, so claude-ide-bridge-mode is defined (an autoload until the package loads).
// package-vc-install (Emacs 29+; scripts/test runs the suite on the newest Emacs too) clones
// this repository with :lisp-dir "editors/emacs", as docs/emacs.md says.
func TestPackageInstalls(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, install string }{
		{"package-install-file", `(package-install-file ` + lispQuote(pkgFile) + `)`},
		{"package-vc-install", `(if (not (fboundp 'package-vc-install)) (princ "NO-PACKAGE-VC\n")
		   (package-vc-install '(claude-ide-bridge :url ` + lispQuote(root) + ` :lisp-dir "editors/emacs")))`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			out := batch(t, home, []string{"HOME=" + home}, "--eval", `(progn (require 'package)
			  (setq package-user-dir `+lispQuote(filepath.Join(home, "elpa"))+` package-archives nil)
			  (package-initialize) `+tc.install+`
			  (princ (format "\nRESULT %s %s %s autoload=%s\n" (package-installed-p 'claude-ide-bridge)
			                 (fboundp 'claude-ide-bridge-mode)
			                 (string-prefix-p package-user-dir (locate-library "claude-ide-bridge"))
			                 (autoloadp (symbol-function 'claude-ide-bridge-mode)))))`)
			if strings.Contains(out, "NO-PACKAGE-VC") {
				t.Skip("SKIPPED on this Emacs (no package-vc before 29): package-vc-install is tested on the newest Emacs")
			}
			// package-vc-install loads what it compiled; package-install-file leaves an autoload.
			want := "RESULT t t t autoload=t"
			if tc.name == "package-vc-install" {
				want = "RESULT t t t"
			}
			if !strings.Contains(out, want) {
				t.Fatalf("installed, defined, from the package dir: want %q:\n%s", want, out)
			}
		})
	}
}

// The modes the customize menu of claude-ide-bridge-permission-mode offers (a few, then any
// string) are the bridge's (internal/permmode.Modes): a mode renamed there fails here.
func TestPermissionModeChoicesAreTheBridges(t *testing.T) {
	t.Parallel()
	out := batch(t, copyPackage(t), nil, "-L", ".", "-l", "claude-ide-bridge", "--eval",
		`(dolist (e (cdr (get 'claude-ide-bridge-permission-mode 'custom-type)))
		   (when (and (eq (car-safe e) 'const) (stringp (car (last e))))
		     (princ (format "mode %s\n" (car (last e))))))`)
	var modes []string
	for _, l := range strings.Split(out, "\n") {
		if m, ok := strings.CutPrefix(l, "mode "); ok {
			modes = append(modes, m)
		}
	}
	if len(modes) == 0 {
		t.Fatalf("no mode among claude-ide-bridge-permission-mode's choices:\n%s", out)
	}
	for _, m := range modes {
		if !slices.Contains(permmode.Modes, m) {
			t.Errorf("claude-ide-bridge-permission-mode offers %q, not one of the bridge's modes %v", m, permmode.Modes)
		}
	}
}
