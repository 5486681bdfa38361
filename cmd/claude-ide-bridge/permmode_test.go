package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Issue 26 item 1: the command serve prints starts claude in the default (manual) mode, in which
// each Edit/Write is an openDiff; when the user's Claude settings choose a mode, the line leaves
// it alone and serve says plainly that the mode skips diffs.
func TestServePrintsPermissionMode(t *testing.T) {
	h := newHome(t)
	s := h.serve(t, nil, "--auto", "reject")
	line := s.waitFor(t, regexp.MustCompile(`(?m)^  (\S+/claude .*)$`))[1]
	if !strings.HasPrefix(line, filepath.Join(h.dir, "bin", "claude")+" --permission-mode default --settings ") {
		t.Errorf("printed command %q, want --permission-mode default", line)
	}
	if strings.Contains(s.out.String(), "note: permission mode") {
		t.Errorf("a warning with no mode chosen:\n%s", s.out.String())
	}

	h2 := newHome(t)
	os.MkdirAll(h2.cfg, 0o700)
	settings := filepath.Join(h2.cfg, "settings.json") // CLAUDE_CONFIG_DIR's settings
	os.WriteFile(settings, []byte(`{"permissions":{"defaultMode":"auto"}}`), 0o600)
	s2 := h2.serve(t, nil, "--auto", "reject")
	s2.waitFor(t, regexp.MustCompile(`note: permission mode`))
	out := s2.out.String()
	if line := s2.waitFor(t, regexp.MustCompile(`(?m)^  (\S+/claude .*)$`))[1]; strings.Contains(line, "--permission-mode") {
		t.Errorf("the user's mode was overridden:\n%s", out)
	}
	if !strings.Contains(out, "note: permission mode auto (set by "+settings+"): Claude writes its edits without showing them as diffs") {
		t.Errorf("no plain warning:\n%s", out)
	}
}

// Issue 35 item 1: serve's line names the claude it found on $PATH outside the workspace, and
// says so when only the workspace has one (direnv's PATH_add bin, a file the model wrote).
func TestServeClaudeNeverTheWorkspaces(t *testing.T) {
	h := newHome(t)
	bin := filepath.Join(h.ws, "bin")
	os.Mkdir(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\n"), 0o755)
	s := h.serve(t, []string{"PATH=" + bin + string(os.PathListSeparator) + filepath.Join(h.dir, "bin")}, "--auto", "reject")
	if line := s.waitFor(t, regexp.MustCompile(`(?m)^  (\S+/claude) `))[1]; line != filepath.Join(h.dir, "bin", "claude") {
		t.Errorf("printed %s, want the claude outside the workspace", line)
	}
	h2 := newHome(t)
	bin = filepath.Join(h2.ws, "bin")
	os.Mkdir(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\n"), 0o755)
	s2 := h2.serve(t, []string{"PATH=" + bin + string(os.PathListSeparator) + "bin"}, "--auto", "reject")
	s2.waitFor(t, regexp.MustCompile(`(?m)^  claude: not found on \$PATH outside the workspace \(relative entries and entries inside the workspace are not searched\)$`))
	if strings.Contains(s2.out.String(), bin) {
		t.Errorf("the banner names the workspace's claude:\n%s", s2.out.String())
	}
}

// doctor says it too, from the same rule.
func TestDoctorPermissionMode(t *testing.T) {
	h := newHome(t)
	os.MkdirAll(filepath.Join(h.ws, ".claude"), 0o755)
	os.WriteFile(filepath.Join(h.ws, ".claude", "settings.json"), []byte(`{"permissions":{"defaultMode":"bypassPermissions"}}`), 0o644)
	out, _, _ := h.command(t, h.ws, "doctor")
	if !strings.Contains(out, "warn  permission mode bypassPermissions (set by "+filepath.Join(h.ws, ".claude", "settings.json")) {
		t.Errorf("doctor:\n%s", out)
	}
}
