package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

const skippedNote = "without showing a diff: its permission mode"

// Issue 39 item 4: a Claude started without the bridge's command line, in a mode that writes
// edits without diffs (acceptEdits), is noticed at its first Edit: serve prints a note saying
// how to get diffs. A Claude started with the printed command (default mode) beside it, whose
// Edit is a diff, adds no second note.
func TestServeNoticesEditWithoutDiff(t *testing.T) {
	t.Parallel()
	s := emptySession(t, map[string]string{"a.txt": "hello world\n", "b.txt": "hello world\n"})
	f, g := s.path("a.txt"), s.path("b.txt")
	p, cmd := startBridge(t, s.Config, "--workspace", s.Project, "--auto", "accept")
	out, port := s.runServe(p, cmd)
	line := serveClaudeLine(t, s, out)

	// A plain claude in acceptEdits mode: its Edit is written, no diff, and serve says so.
	s.serveClaude(p, cliOptions{Port: port, Args: []string{"--permission-mode", "acceptEdits"}, AsGiven: true})
	s.CLI.WaitText(s.bound(stepBound), "accept edits on")
	s.editWorld(f, "EDITED")
	waitUntil(s.bound(stepBound), t, "serve's note", func() bool { return strings.Contains(out.String(), "note: Claude wrote a.txt "+skippedNote) })
	s.CLI.kill()

	// The printed command: default mode, the Edit is a diff (auto-accepted), no note.
	s.serveClaude(p, cliOptions{Port: port, Args: strings.Fields(line), AsGiven: true})
	s.CLI.WaitText(s.bound(stepBound), "? for shortcuts")
	s.editWorld(g, "EDITED TOO")
	if got := diffAnswers(readTrace(t, p.Trace)); len(got) != 1 {
		t.Errorf("openDiff answers %q, want b.txt's Edit as one diff", got)
	}
	if n := strings.Count(out.String(), skippedNote); n != 1 {
		t.Errorf("%d notes, want only the plain claude's", n)
	}
}

// The same through the editor protocol: a plain claude in acceptEdits mode beside an editor's
// bridge; its Edit reaches the editor as a diffsSkipped notification naming the file.
func TestEditorNoticesEditWithoutDiff(t *testing.T) {
	t.Parallel()
	s := emptySession(t, map[string]string{"a.txt": "hello world\n"})
	f := s.path("a.txt")
	ed := startEditor(t, s.Config, s.Project)
	s.startClaude(cliOptions{Port: ed.Init.Port, Args: []string{"--permission-mode", "acceptEdits"}, AsGiven: true})
	ed.Wait(s.bound(connectBound), "clientConnected", nil)
	s.CLI.WaitText(s.bound(stepBound), "accept edits on")
	s.API.Push(fakeapi.Edit(f, "world", "there", "EDITED")...)
	s.prompt("edit a")
	m := ed.Wait(s.bound(stepBound), "diffsSkipped", nil)
	if m.Params["filePath"] != f || !strings.Contains(m.Params["message"].(string), "Claude wrote a.txt "+skippedNote) {
		t.Errorf("diffsSkipped %v", m.Params)
	}
	s.CLI.WaitText(s.bound(stepBound), "EDITED")
}

// editWorld has the model edit "world" to "there" in path and say after, and checks that the
// turn ended with the Edit written.
func (s *session) editWorld(path, after string) {
	s.t.Helper()
	s.API.Push(fakeapi.Edit(path, "world", "there", after)...)
	s.prompt("edit " + filepath.Base(path))
	s.CLI.WaitText(s.bound(stepBound), after)
	if got := readFile(s.t, path); got != "hello there\n" {
		s.t.Fatalf("%s %q: the Edit was not written", filepath.Base(path), got)
	}
}
