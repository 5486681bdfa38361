package emacstest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// batch runs emacs --batch -Q with args in dir and returns its output; it fails the test when
// Emacs exits non-zero.
func batch(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(needEmacs(t), append([]string{"--batch", "-Q"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
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
	dir := copyPackage(t)
	out := batch(t, dir, nil, "--eval", "(setq byte-compile-error-on-warn t)", "-f", "batch-byte-compile", "claude-ide-bridge.el")
	if _, err := os.Stat(filepath.Join(dir, "claude-ide-bridge.elc")); err != nil || strings.Contains(out, "Warning") {
		t.Fatalf("byte-compile: %v\n%s", err, out)
	}
}

// Issue 30: "`checkdoc` clean" (the tests' file too).
func TestCheckdocClean(t *testing.T) {
	for _, f := range []string{pkgFile, filepath.Join(root, "test", "emacs", "claude-ide-bridge-test.el")} {
		if out := batch(t, filepath.Dir(f), nil, "--eval", `(checkdoc-file "`+filepath.Base(f)+`")`); strings.TrimSpace(out) != "" {
			t.Errorf("checkdoc %s:\n%s", filepath.Base(f), out)
		}
	}
}

// Issue 30: "The package is at most 1,200 lines, because the bridge owns every rule."
func TestPackageSize(t *testing.T) {
	data, err := os.ReadFile(pkgFile)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\n")); n > 1200 {
		t.Fatalf("%s has %d lines, more than 1,200", filepath.Base(pkgFile), n)
	}
}

// The ERT tests of the protocol pieces (test/emacs/claude-ide-bridge-test.el), byte-compiled
// as users load it, against this run's bridge.
func TestERT(t *testing.T) {
	dir := copyPackage(t)
	batch(t, dir, nil, "-f", "batch-byte-compile", "claude-ide-bridge.el")
	out := batch(t, dir, []string{"CLAUDE_IDE_BRIDGE_BIN=" + bridgeBin}, "-L", dir,
		"-l", filepath.Join(root, "test", "emacs", "claude-ide-bridge-test.el"), "-f", "ert-run-tests-batch-and-exit")
	if testing.Verbose() {
		t.Log(out)
	}
}
