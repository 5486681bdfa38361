package main

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

// probe against the real binary running serve --auto accept: found through the lock of the
// workspace it runs in, every check passes (getOpenEditors is skipped: the terminal lists no
// tabs), exit status 0.
func TestProbeServeAutoAccept(t *testing.T) {
	h := newHome(t)
	s := h.serve(t, nil, "--auto", "accept")
	for _, args := range [][]string{
		{"probe", "--diff"},
		{"probe", "--diff", "--port", strconv.Itoa(s.port)},
		{"probe", "--lock", s.lock},
	} {
		out, errOut, code := h.command(t, h.ws, args...)
		if code != 0 || strings.Contains(out, "FAIL") || !strings.Contains(out, "close-tab-unknown    pass") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
		if strings.Contains(strings.Join(args, " "), "--diff") && !strings.Contains(out, "open-diff            pass") {
			t.Errorf("%v: open-diff did not pass:\n%s", args, out)
		}
	}
}

// A failing check, an unknown check or no server: exit status 1 with the reason.
func TestProbeFailures(t *testing.T) {
	h := newHome(t)
	s := h.serve(t, nil, "--auto", "reject")
	tests := []struct {
		args []string
		dir  string
		code int
		says string
	}{
		{[]string{"probe", "--checks", "nope"}, h.ws, 1, `unknown check "nope"`},
		{[]string{"probe"}, h.dir, 1, "no live IDE server"},
		{[]string{"probe", "--port", strconv.Itoa(s.port + 1)}, h.ws, 1, "no " + strconv.Itoa(s.port+1) + ".lock"},
		{[]string{"probe", "--port", "1", "--lock", s.lock}, h.ws, 2, ""},
		// DIFF_REJECTED + tab_name is a valid answer: open-diff passes with a rejecting server.
		{[]string{"probe", "--diff", "--checks", "open-diff"}, h.ws, 0, "DIFF_REJECTED with the tab name"},
	}
	for _, tt := range tests {
		out, errOut, code := h.command(t, tt.dir, tt.args...)
		if code != tt.code || !strings.Contains(out+errOut, tt.says) {
			t.Errorf("%v: exit %d, want %d saying %q\n%s%s", tt.args, code, tt.code, tt.says, out, errOut)
		}
	}
}

// Issue 25 item 7: probe printed the lock's ideName (any IDE writes it) raw: an escape sequence
// there cleared the screen or retitled the terminal. It is shown escaped now.
func TestProbeEscapesLockText(t *testing.T) {
	h := newHome(t)
	s := h.serve(t, nil, "--auto", "accept")
	data, err := os.ReadFile(s.lock)
	if err != nil {
		t.Fatal(err)
	}
	var l map[string]any
	json.Unmarshal(data, &l)
	l["ideName"] = "Evil\x1b[2J\x1b]0;pwned\x07\u202e"
	data, _ = json.Marshal(l)
	if err := os.WriteFile(s.lock, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := h.command(t, h.ws, "probe", "--lock", s.lock, "--checks", "initialize")
	if code != 0 || !strings.Contains(out, `probed Evil\x1b[2J\x1b]0;pwned\x07\u202e on`) {
		t.Fatalf("exit %d\n%q\n%s", code, out, errOut)
	}
	if strings.ContainsAny(out, "\x1b\x07\u202e") {
		t.Fatalf("raw control characters in %q", out)
	}
}
