package main

import (
	"strings"
	"testing"
)

// doctor run where claude runs: against a live bridge in the same CLAUDE_CONFIG_DIR it says
// claude connects (status 0); from a folder the bridge does not serve, or with no bridge, it
// says why (status 1). The checks themselves are tested in internal/doctor.
func TestDoctor(t *testing.T) {
	h := newHome(t)
	out, _, code := h.command(t, h.ws, "doctor")
	if code != 1 || !strings.Contains(out, "no lock file in "+h.cfg) {
		t.Errorf("doctor with no bridge: status %d\n%s", code, out)
	}
	s := h.serve(t, nil, "--auto", "accept")
	out, _, code = h.command(t, h.ws, "doctor")
	if code != 0 || !strings.Contains(out, "connects to Terminal on port") {
		t.Errorf("doctor with a live bridge: status %d\n%s", code, out)
	}
	other := t.TempDir()
	out, _, code = h.command(t, h.ws, "doctor", "--cwd", other)
	if code != 1 || !strings.Contains(out, "no live IDE server serves") {
		t.Errorf("doctor for another folder: status %d\n%s", code, out)
	}
	_ = s
}
