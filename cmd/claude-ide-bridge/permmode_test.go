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
	line := s.waitFor(t, regexp.MustCompile(`(?m)^  (claude .*)$`))[1]
	if !strings.HasPrefix(line, "claude --permission-mode default --settings ") {
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
	if line := s2.waitFor(t, regexp.MustCompile(`(?m)^  (claude .*)$`))[1]; strings.Contains(line, "--permission-mode") {
		t.Errorf("the user's mode was overridden:\n%s", out)
	}
	if !strings.Contains(out, "note: permission mode auto (set by "+settings+"): Claude writes its edits without showing them as diffs") {
		t.Errorf("no plain warning:\n%s", out)
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
