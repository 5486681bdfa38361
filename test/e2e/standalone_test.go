package e2e

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

// newStandalone runs `claude-ide-bridge serve --workspace DIR --auto mode`
// (no editor) and a CLI connected to it.
func newStandalone(t *testing.T, mode string, files map[string]string) (*session, *proc) {
	t.Helper()
	s := emptySession(t, files)
	p, cmd := startBridge(t, s.Config, "--workspace", s.Project, "--auto", mode)
	_, port := s.runServe(p, cmd)
	s.serveClaude(p, cliOptions{Port: port})
	s.CLI.WaitText(s.bound(stepBound), "? for shortcuts")
	return s, p
}

// waitLockPort waits for the bridge's lock file in config/ide and returns
// the port its name carries.
func waitLockPort(ctx context.Context, t *testing.T, config string) int {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		locks, _ := filepath.Glob(filepath.Join(config, "ide", "*.lock"))
		if len(locks) == 1 {
			port, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(locks[0]), ".lock"))
			if err != nil {
				t.Fatalf("lock name %s: %v", locks[0], err)
			}
			return port
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("no single lock file in %s/ide (found %v): %v", config, locks, ctx.Err())
		}
	}
}

// standaloneEdit runs newStandalone in mode with hello.txt ("hello world") and has the model
// edit "world" to "there" in it (then say after); it returns the file too.
func standaloneEdit(t *testing.T, mode, after string) (*session, *proc, string) {
	t.Helper()
	s, p := newStandalone(t, mode, map[string]string{"hello.txt": "hello world\n"})
	f := s.path("hello.txt")
	s.API.Push(fakeapi.Edit(f, "world", "there", after)...)
	s.prompt("edit hello")
	return s, p, f
}

// diffAnswers returns the first text of every openDiff answer in the trace.
func diffAnswers(fs []frame) []string {
	var out []string
	for _, c := range toolCalls(fs, "openDiff") {
		if r, ok := response(fs, c); ok {
			if texts := resultTexts(r); len(texts) > 0 {
				out = append(out, texts[0])
			}
		}
	}
	return out
}

// Standalone --auto accept: the proposal is accepted as is and the CLI
// writes it.
func TestStandaloneAutoAccept(t *testing.T) {
	t.Parallel()
	s, p, f := standaloneEdit(t, "accept", "AUTO ACCEPTED")
	tr := lastToolResult(t, s.waitMain(3))
	if !strings.Contains(tr.Content, editedOK) || strings.Contains(tr.Content, staleFile) || strings.Contains(tr.Content, userModified) {
		t.Errorf("Edit tool result %+v", tr)
	}
	if got := readFile(t, f); got != "hello there\n" {
		t.Errorf("file %q, want the proposal", got)
	}
	// Facts: accepted is FILE_SAVED + contents, or TAB_CLOSED (as proposed).
	if got := diffAnswers(readTrace(t, p.Trace)); len(got) != 1 || (got[0] != "FILE_SAVED" && got[0] != "TAB_CLOSED") {
		t.Errorf("openDiff answers %q, want one accept", got)
	}
}

// Standalone --auto reject: the file stays as it was.
func TestStandaloneAutoReject(t *testing.T) {
	t.Parallel()
	s, p, f := standaloneEdit(t, "reject", "AUTO REJECTED")
	s.CLI.WaitText(s.bound(stepBound), "Rejected update to hello.txt")
	if got := diffAnswers(readTrace(t, p.Trace)); len(got) != 1 || got[0] != "DIFF_REJECTED" {
		t.Errorf("openDiff answers %q, want DIFF_REJECTED", got)
	}
	if got := readFile(t, f); got != "hello world\n" {
		t.Errorf("file %q, want it unchanged", got)
	}
}
