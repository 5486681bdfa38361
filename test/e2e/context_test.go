package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// (h) The editor's selection reaches the model through selection_changed.
func TestSelectionReachesModel(t *testing.T) {
	t.Parallel()
	s := newSession(t, map[string]string{"poem.txt": "line one\nline two\nline three\n", "other.txt": "x\n", "third.txt": "y\n"})
	f := s.path("poem.txt")
	s.ready(s.path("other.txt"))
	s.API.Push(fakeapi.Text("SEL ONE"), fakeapi.Text("SEL TWO"))

	sel := map[string]any{"start": map[string]any{"line": 1, "character": 0}, "end": map[string]any{"line": 3, "character": 0}, "isEmpty": false}
	s.Ed.Notify(s.bound(stepBound), "selectionChanged", map[string]any{"text": "line two\nline three\n", "filePath": f, "selection": sel})
	fs := waitTrace(s.bound(stepBound), t, s.Ed.bridge.Trace, "selection_changed", func(fs []frame) bool {
		for _, fr := range fs {
			if fr.Dir == "out" && fr.m.Method == "selection_changed" && strings.Contains(string(fr.m.Params), "poem.txt") {
				return true
			}
		}
		return false
	})
	for _, fr := range fs {
		if fr.Dir == "out" && fr.m.Method == "selection_changed" && strings.Contains(string(fr.m.Params), "poem.txt") {
			var p struct {
				FilePath, FileURL, Text string
				Selection               json.RawMessage
			}
			_ = json.Unmarshal(fr.m.Params, &p)
			// Protocol: "The bridge passes selection and diagnostic positions to Claude unchanged".
			want, _ := json.Marshal(sel)
			if p.FilePath != f || p.FileURL != "file://"+f || p.Text != "line two\nline three\n" || !harness.JSONEqual(p.Selection, want) {
				t.Errorf("selection_changed %s", fr.Msg)
			}
			break
		}
	}
	// Facts: lines = end.line - start.line + 1, minus 1 when end.character
	// == 0; "the model gets "The user selected the lines A to B from <path>:\n<text>"".
	r := s.prompt("what did I select")
	txt := r.Text()
	i := strings.Index(txt, "The user selected the lines 2 to 3 from ")
	if i < 0 || !strings.Contains(txt[i:], "poem.txt:\nline two\nline three") {
		t.Errorf("model request lacks the selection:\n%s", r.LastUserText())
	} else {
		t.Logf("sent to the model: %q", firstLines(txt[i:], 3))
	}

	// An empty selection (a cursor) in another file: "The user opened the
	// file <path> in the IDE".
	o := s.path("third.txt")
	s.CLI.WaitText(s.bound(stepBound), "SEL ONE")
	cur := map[string]any{"line": 0, "character": 0}
	s.Ed.Notify(s.bound(stepBound), "selectionChanged", map[string]any{"text": "", "filePath": o,
		"selection": map[string]any{"start": cur, "end": cur, "isEmpty": true}})
	waitTrace(s.bound(stepBound), t, s.Ed.bridge.Trace, "selection_changed for third.txt", func(fs []frame) bool {
		for _, fr := range fs {
			if fr.Dir == "out" && fr.m.Method == "selection_changed" && strings.Contains(string(fr.m.Params), "third.txt") {
				return true
			}
		}
		return false
	})
	s.CLI.WaitText(s.bound(stepBound), "⧉ In third.txt")
	r = s.prompt("and now")
	if !strings.Contains(r.LastUserText(), "The user opened the file ") || !strings.Contains(r.LastUserText(), "third.txt in the IDE") {
		t.Errorf("model request lacks the opened file:\n%s", r.LastUserText())
	}
}

// (i) atMentioned from the editor inserts @path#La-b at the CLI's prompt.
func TestAtMentioned(t *testing.T) {
	t.Parallel()
	s := newSession(t, map[string]string{"poem.txt": "line one\nline two\nline three\n"})
	f := s.path("poem.txt")
	s.ready(f)
	var res struct {
		Delivered int  `json:"delivered"`
		Held      bool `json:"held"`
	}
	if err := s.Ed.Call(s.bound(stepBound), "atMentioned", map[string]any{"filePath": f, "lineStart": 1, "lineEnd": 2}, &res); err != nil {
		t.Fatalf("atMentioned: %v", err)
	}
	if res.Delivered != 1 || res.Held {
		t.Errorf("atMentioned result %+v, want delivered 1", res)
	}
	// Facts: at_mentioned (0-based, lineEnd inclusive) inserts
	// "@<path relative to the CLI cwd>#L<a>-<b> " at the prompt.
	s.CLI.WaitText(s.bound(stepBound), "@poem.txt#L2-3")
	// Sent, the mention gives the model those lines of the file.
	s.API.Push(fakeapi.Text("MENTION SEEN"))
	r := s.prompt("explain")
	if u := r.LastUserText(); !strings.Contains(u, "@poem.txt#L2-3 explain") || !strings.Contains(u, "2\tline two\n3\tline three") {
		t.Errorf("model request lacks the mentioned lines:\n%s", u)
	}
	fs := readTrace(t, s.Ed.bridge.Trace)
	for _, fr := range fs {
		if fr.Dir == "out" && fr.m.Method == "at_mentioned" {
			var p struct {
				FilePath           string
				LineStart, LineEnd int
			}
			_ = json.Unmarshal(fr.m.Params, &p)
			if p.FilePath != f || p.LineStart != 1 || p.LineEnd != 2 {
				t.Errorf("at_mentioned %s", fr.Msg)
			}
		}
	}
}

// (k) Two CLIs on one bridge: both connect, each gets the selection, and
// each one's edit goes through the editor to its own file.
func TestTwoCLIs(t *testing.T) {
	t.Parallel()
	s := newSession(t, map[string]string{"a.txt": "alpha\n", "b.txt": "bravo\n"})
	api2 := fakeapi.New()
	t.Cleanup(api2.Close)
	c2 := startCLI(t, api2, cliOptions{Project: s.Project, Config: s.Config, Port: s.Ed.Init.Port})
	s.waitConnected(2)
	c2.WaitText(s.bound(stepBound), "? for shortcuts")

	// Spec: "Each WebSocket connection is a separate client."
	fs := waitTrace(s.bound(stepBound), t, s.Ed.bridge.Trace, "two ide_connected", func(fs []frame) bool {
		n := 0
		for _, f := range fs {
			if f.Dir == "in" && f.m.Method == "ide_connected" {
				n++
			}
		}
		return n == 2
	})
	clients := map[int]bool{}
	for _, f := range fs {
		if f.m.Method == "ide_connected" {
			clients[f.Client] = true
		}
	}
	if len(clients) != 2 {
		t.Fatalf("ide_connected from clients %v, want two", clients)
	}

	// The editor's selection reaches both: each shows the IDE chip.
	s.ready(s.path("a.txt"), s.CLI, c2)
	waitTrace(s.bound(stepBound), t, s.Ed.bridge.Trace, "selection_changed to both clients", func(fs []frame) bool {
		got := map[int]bool{}
		for _, f := range fs {
			if f.Dir == "out" && f.m.Method == "selection_changed" {
				got[f.Client] = true
			}
		}
		return len(got) == 2
	})

	// CLI 1 proposes an edit; while it is pending, CLI 2 starts a prompt,
	// and with it its closeAllDiffTabs.
	a, b := s.path("a.txt"), s.path("b.txt")
	s.API.Push(fakeapi.Edit(a, "alpha", "ALPHA", "A DONE")...)
	api2.Push(fakeapi.Edit(b, "bravo", "BRAVO", "B DONE")...)
	s.prompt("edit a")
	da := s.showDiff(a)
	c2.Type("edit b")
	db := s.showDiff(b)

	// Spec: "A diff belongs to the client whose openDiff call opened it."
	// Another CLI's closeAllDiffTabs must leave it alone, so the user can
	// still accept it.
	for _, d := range []editorMsg{da, db} {
		if err := s.Ed.Call(s.bound(stepBound), "diffAccepted", map[string]any{"tabName": d.Params["tabName"], "proposal": d.Params["proposal"], "contents": d.Params["newContents"]}, nil); err != nil {
			t.Errorf("diffAccepted %v: %v", d.Params["tabName"], err)
		}
	}
	for _, d := range []editorMsg{da, db} {
		if got := s.openDiffAnswer(str(d.Params["tabName"])); len(got) == 0 || got[0] != "FILE_SAVED" {
			t.Errorf("openDiff %v answered %q, want FILE_SAVED", d.Params["tabName"], got)
		}
	}
	if t.Failed() {
		return
	}
	s.waitMain(3)
	if _, err := api2.WaitMain(s.bound(stepBound), 3); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, a); got != "ALPHA\n" {
		t.Errorf("a.txt %q", got)
	}
	if got := readFile(t, b); got != "BRAVO\n" {
		t.Errorf("b.txt %q", got)
	}
}

func firstLines(s string, n int) string {
	parts := strings.SplitN(s, "\n", n+1)
	if len(parts) > n {
		parts = parts[:n]
	}
	return strings.Join(parts, "\n")
}

// An editor that mentions a range as soon as it hears clientConnected (a
// user who sends a selection right after starting claude) must still see it
// land at the prompt. Protocol: atMentioned "delivered counts connected
// clients"; with none connected the mention is held "and delivered to the
// first client that completes its handshake". CLI 2.1.328 drops
// at_mentioned that arrives before it is ready, so a delivery it ignores
// is a lost mention.
func TestAtMentionedRightAfterConnect(t *testing.T) {
	t.Parallel()
	s := connectedSession(t, "line one\nline two\nline three\n")
	if err := s.Ed.Call(s.bound(stepBound), "atMentioned", map[string]any{"filePath": s.path("poem.txt"), "lineStart": 1, "lineEnd": 2}, nil); err != nil {
		t.Fatalf("atMentioned: %v", err)
	}
	s.CLI.WaitText(s.bound(stepBound), "@poem.txt#L2-3")
}

// Likewise for the selection: one selectionChanged sent as soon as the
// editor hears clientConnected must reach the CLI (the prompt shows the
// "[⧉ In <file>]" chip). The editor sends on change only, so a selection
// the CLI dropped stays lost until the user moves the cursor.
func TestSelectionRightAfterConnect(t *testing.T) {
	t.Parallel()
	s := connectedSession(t, "line one\n")
	cur := map[string]any{"line": 0, "character": 0}
	s.Ed.Notify(s.bound(stepBound), "selectionChanged", map[string]any{"text": "", "filePath": s.path("poem.txt"),
		"selection": map[string]any{"start": cur, "end": cur, "isEmpty": true}})
	s.CLI.WaitText(s.bound(stepBound), "⧉ In poem.txt")
}

// connectedSession is a session whose poem.txt holds poem, as soon as its CLI completed the
// handshake with the editor's bridge (newSession waits further, until it acts on notifications).
func connectedSession(t *testing.T, poem string) *session {
	t.Helper()
	s := emptySession(t, map[string]string{"poem.txt": poem})
	s.Ed = startEditor(t, s.Config, s.Project)
	s.startClaude(cliOptions{Port: s.Ed.Init.Port})
	s.waitConnected(1)
	return s
}
