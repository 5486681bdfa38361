package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/testbin"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

const skippedNote = "without showing a diff: its permission mode"

// Issue 39 item 4: a Claude started without the bridge's command line, in a mode that writes
// edits without diffs (acceptEdits), is noticed at its first Edit: serve prints a note saying
// how to get diffs. A Claude started with the printed command (default mode) beside it, whose
// Edit is a diff, adds no second note.
func TestServeNoticesEditWithoutDiff(t *testing.T) {
	t.Parallel()
	claudeBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), testBound)
	t.Cleanup(cancel)
	s := &session{t: t, ctx: ctx, Project: realDir(t), Config: realDir(t)}
	f, g := s.path("a.txt"), s.path("b.txt")
	writeFile(t, f, "hello world\n")
	writeFile(t, g, "hello world\n")
	p, cmd := startBridge(t, s.Config, "--workspace", s.Project, "--auto", "accept")
	out := &testbin.Buffer{}
	cmd.Stdout = out
	p.run(t)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve's output:\n%s", out.String())
		}
	})
	port := waitLockPort(s.bound(stepBound), t, s.Config)
	line := serveClaudeLine(t, s, out)

	// A plain claude in acceptEdits mode: its Edit is written, no diff, and serve says so.
	s.API = fakeapi.New()
	t.Cleanup(s.API.Close)
	s.CLI = startCLI(t, s.API, cliOptions{Project: s.Project, Config: s.Config, Port: port,
		Args: []string{"--permission-mode", "acceptEdits"}, AsGiven: true})
	waitTrace(s.bound(connectBound), t, p.Trace, "ide_connected", func(fs []frame) bool { return hasMethod(fs, "in", "ide_connected") })
	s.CLI.WaitText(s.bound(stepBound), "accept edits on")
	s.API.Push(edit(f, "world", "there", "EDITED")...)
	s.prompt("edit a")
	s.CLI.WaitText(s.bound(stepBound), "EDITED")
	if got := readFile(t, f); got != "hello there\n" {
		t.Fatalf("a.txt %q: the Edit was not written", got)
	}
	waitUntil(s.bound(stepBound), t, "serve's note", func() bool { return strings.Contains(out.String(), "note: Claude wrote a.txt "+skippedNote) })
	s.CLI.kill()

	// The printed command: default mode, the Edit is a diff (auto-accepted), no note.
	api := fakeapi.New()
	t.Cleanup(api.Close)
	c2 := startCLI(t, api, cliOptions{Project: s.Project, Config: s.Config, Port: port, Args: strings.Fields(line), AsGiven: true})
	s.API, s.CLI = api, c2
	s.CLI.WaitText(s.bound(stepBound), "? for shortcuts")
	s.API.Push(edit(g, "world", "there", "EDITED TOO")...)
	s.prompt("edit b")
	s.CLI.WaitText(s.bound(stepBound), "EDITED TOO")
	if got := readFile(t, g); got != "hello there\n" {
		t.Fatalf("b.txt %q after the accepted diff", got)
	}
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
	claudeBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), testBound)
	t.Cleanup(cancel)
	s := &session{t: t, ctx: ctx, Project: realDir(t), Config: realDir(t)}
	f := s.path("a.txt")
	writeFile(t, f, "hello world\n")
	ed := startEditor(t, s.Config, s.Project)
	s.API = fakeapi.New()
	t.Cleanup(s.API.Close)
	s.CLI = startCLI(t, s.API, cliOptions{Project: s.Project, Config: s.Config, Port: ed.Init.Port,
		Args: []string{"--permission-mode", "acceptEdits"}, AsGiven: true})
	ed.Wait(s.bound(connectBound), "clientConnected", nil)
	s.CLI.WaitText(s.bound(stepBound), "accept edits on")
	s.API.Push(edit(f, "world", "there", "EDITED")...)
	s.prompt("edit a")
	m := ed.Wait(s.bound(stepBound), "diffsSkipped", nil)
	if m.Params["filePath"] != f || !strings.Contains(m.Params["message"].(string), "Claude wrote a.txt "+skippedNote) {
		t.Errorf("diffsSkipped %v", m.Params)
	}
	s.CLI.WaitText(s.bound(stepBound), "EDITED")
}
