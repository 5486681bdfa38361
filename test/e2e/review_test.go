package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

// git runs git in dir (a test repository).
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// reviewJSON runs `claude-ide-bridge review --json args...` in dir, as a user's shell would.
func reviewJSON(t *testing.T, config, dir string, args ...string) review.Answer {
	t.Helper()
	cmd := exec.Command(bridgeBin, append([]string{"review", "--json"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+config, "HOME="+config)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("review --json %v: %v\n%s", args, err, errb.String())
	}
	var a review.Answer
	if err := json.Unmarshal(out.Bytes(), &a); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out.String())
	}
	return a
}

// Issue 26, "What it must show": Claude in acceptEdits mode (chosen in the user's settings, so
// the printed command leaves it), started with serve's printed command, edits a file with Edit,
// creates one with Write and changes a third with Bash in one turn. The turn's end prints the
// summary; `review --json` lists the three with exactly the right diffs; a revert puts a file
// back, and the next turn does not count the revert as Claude's. Along the way the session is
// waiting during the Bash permission prompt and idle after the turn (item 3).
func TestReviewTurnInAcceptEdits(t *testing.T) {
	t.Parallel()
	s := emptySession(t, map[string]string{"a.txt": "alpha\nbeta\ngamma\n", "c.txt": "one\ntwo\nthree\n"})
	a, b, c := s.path("a.txt"), s.path("b.txt"), s.path("c.txt")
	git(t, s.Project, "init", "-q")
	git(t, s.Project, "add", "a.txt", "c.txt")
	git(t, s.Project, "commit", "-qm", "start")
	writeFile(t, filepath.Join(s.Config, "settings.json"), `{"permissions":{"defaultMode":"acceptEdits"}}`)

	p, cmd := startBridge(t, s.Config, "--workspace", s.Project, "--auto", "accept")
	out, port := s.runServe(p, cmd)
	line := serveClaudeLine(t, s, out)
	if strings.Contains(line, "--permission-mode") || !strings.Contains(line, "--settings ") {
		t.Fatalf("serve printed %q: want the user's mode kept and the bridge's hooks", line)
	}
	args := strings.Fields(line)
	if dump := os.Getenv("HOOKDUMP"); dump != "" { // exploring the CLI's hooks (docs/claude-cli-notes.md)
		args = replaceSettings(t, args, dump)
	}
	s.serveClaude(p, cliOptions{Port: port, Args: args, AsGiven: true})
	// Seen with 2.1.328: a config whose defaultMode is acceptEdits is asked at start whether
	// auto mode should become the default. Keep accept edits.
	s.CLI.Choose(s.bound(connectBound), "Make auto mode your default permission mode?", "2")
	s.CLI.WaitText(s.bound(stepBound), "accept edits on")

	s.API.Push(
		fakeapi.Tool("Read", map[string]any{"file_path": a}),
		fakeapi.Tool("Edit", map[string]any{"file_path": a, "old_string": "beta", "new_string": "BETA"}),
		fakeapi.Tool("Write", map[string]any{"file_path": b, "content": "new file\nsecond line\n"}),
		fakeapi.Tool("Bash", map[string]any{"command": "sed -i s/two/2/ c.txt", "description": "change c"}),
		fakeapi.Text("TURN ONE DONE"),
	)
	s.prompt("change three files")
	s.CLI.WaitText(s.bound(stepBound), "TURN ONE DONE")
	if os.Getenv("HOOKDUMP") != "" { // and through a permission prompt
		s.API.Push(fakeapi.Tool("Bash", map[string]any{"command": `python3 -c "print(1)"`, "description": "ask"}), fakeapi.Text("TURN TWO DONE"))
		s.prompt("once more")
		s.CLI.WaitText(s.bound(stepBound), "Do you want to proceed?")
		time.Sleep(2 * time.Second) // exploring only: lets the notification hooks run
		s.CLI.Choose(s.bound(stepBound), "Do you want to proceed?", "1")
		s.CLI.WaitText(s.bound(stepBound), "TURN TWO DONE")
		return
	}
	// The Stop hook ends the turn: serve prints its summary, then the idle state.
	waitUntil(s.bound(stepBound), t, "the turn's summary", func() bool { return strings.Contains(out.String(), "Claude changed 3 files: +4 -2") })
	waitUntil(s.bound(stepBound), t, "idle", func() bool { return strings.Contains(out.String(), ": idle") })

	got := reviewJSON(t, s.Config, s.Project)
	r := got.Report
	if r.Running || len(r.Files) != 3 {
		t.Fatalf("review: %+v", r)
	}
	want := []struct {
		path, status, by, diff string
	}{
		// Headers as git writes them, relative to the workspace (issue 39 item 10).
		{a, "modified", "Edit/Write", "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n"},
		{b, "created", "Edit/Write", "--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1,2 @@\n+new file\n+second line\n"},
		{c, "modified", "other", "--- a/c.txt\n+++ b/c.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"},
	}
	for i, w := range want {
		f := r.Files[i]
		if f.Path != w.path || f.Status != w.status || f.By != w.by || f.Diff != w.diff {
			t.Errorf("file %d: %+v\nwant %s %s by %s with diff\n%s", i, f, w.path, w.status, w.by, w.diff)
		}
	}
	if r.Files[2].From != review.FromGit {
		t.Errorf("c.txt's earlier text from %q, want git's index", r.Files[2].From)
	}

	// The user reverts c.txt; the next turn (an Edit of a.txt) does not count it.
	if a := reviewJSON(t, s.Config, s.Project, "--revert", c); a.Reverted != c || len(a.Report.Files) != 2 {
		t.Errorf("revert: %+v", a)
	}
	if got := readFile(t, c); got != "one\ntwo\nthree\n" {
		t.Errorf("c.txt %q after the revert", got)
	}
	d := s.path("d.txt")
	s.API.Push(
		fakeapi.Tool("Edit", map[string]any{"file_path": a, "old_string": "gamma", "new_string": "GAMMA"}),
		fakeapi.Tool("Bash", map[string]any{"command": `python3 -c "open('d.txt','w').write('d\n')"`, "description": "make d"}),
		fakeapi.Text("TURN TWO DONE"),
	)
	s.prompt("once more")
	// This command asks in acceptEdits (sed -i on a workspace file did not): the session waits
	// for the user, and serve says so.
	s.CLI.WaitText(s.bound(stepBound), "Do you want to proceed?")
	waitUntil(s.bound(stepBound), t, "serve's waiting line", func() bool { return strings.Contains(out.String(), "waiting for you") })
	s.CLI.Choose(s.bound(stepBound), "Do you want to proceed?", "1")
	s.CLI.WaitText(s.bound(stepBound), "TURN TWO DONE")
	waitUntil(s.bound(stepBound), t, "the second summary", func() bool { return strings.Contains(out.String(), "Claude changed 2 files: +2 -1") })
	r2 := reviewJSON(t, s.Config, s.Project).Report
	if r2.Turn <= r.Turn || len(r2.Files) != 2 || r2.Files[0].Path != a || !strings.Contains(r2.Files[0].Diff, "-gamma\n+GAMMA\n") ||
		r2.Files[1].Path != d || r2.Files[1].Status != "created" || r2.Files[1].By != "other" {
		t.Errorf("second turn (c.txt's revert must not be in it): %+v", r2)
	}
}

// replaceSettings swaps the bridge's --settings for one whose hooks append their input to dump.
func replaceSettings(t *testing.T, args []string, dump string) []string {
	events := []string{"SessionStart", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
		"Notification", "PermissionRequest", "PermissionDenied", "Stop", "StopFailure", "SessionEnd", "FileChanged", "SubagentStart", "SubagentStop"}
	hooks := map[string]any{}
	for _, e := range events {
		hooks[e] = []map[string]any{{"matcher": "*", "hooks": []map[string]any{{"type": "command", "command": "cat >> " + dump + "; echo >> " + dump}}}}
	}
	data, _ := json.Marshal(map[string]any{"hooks": hooks})
	f := filepath.Join(t.TempDir(), "dump.json")
	os.WriteFile(f, data, 0o600)
	for i := range args {
		if args[i] == "--settings" && i+1 < len(args) {
			args[i+1] = f
		}
	}
	return args
}
