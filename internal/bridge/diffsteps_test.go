package bridge_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
)

// The sentences the steps check (spec 000 and claude-cli-facts.md).
const (
	sConn      = `spec 000: "Each WebSocket connection is a separate client. A diff belongs to the client whose openDiff call opened it. A Claude CLI that reconnects is a new client, so it does not own the diffs it opened before."`
	sBlocks    = `spec 000: "The openDiff tool is blocking and waits for user interaction"`
	sSaved     = `facts: "[{text:"FILE_SAVED"}, {text:<final file contents>}]: accepted with those contents (user edits included)."`
	sRejected  = `facts: "[{text:"DIFF_REJECTED"}, {text:<tab_name>}]: denied"`
	sNoWrite   = `facts: "The CLI writes the file itself. The server must NOT write it"`
	sReplace   = `spec 000: "A new call with the tab_name of an open diff replaces that diff."`
	sRefuse    = `spec 000: "if the user already accepted that diff for another client, the call fails at once with error -32000, and the accepted diff stays open until that client closes it or the user runs :ClaudeCodeCloseAllDiffs."`
	sUserClose = `spec 000: "That command closes it once the file holds the accepted text, or after it puts the text into the file's buffer as unsaved changes."`
	sExact     = `spec 000 close_tab: "The plugin closes only the diff that openDiff opened with this exact tab_name. A name that matches no diff closes nothing"`
	sStays     = `spec 000 close_tab: "A diff that the user accepted for another client stays open."`
	sTabClosed = `spec 000 close_tab: "The answer is TAB_CLOSED in all three cases: the diff closed, the diff stays for another client, or no diff has that name."`
	sCount     = `spec 000 closeAllDiffTabs: "CLOSED_${count}_DIFF_TABS ... A diff that the user accepted for another client stays open and is not counted"`
	sSettle    = `facts: "That pending openDiff is then never awaited again: the server must close it and settle it itself (never as an accept)."`
	sOwnPrompt = `spec 000: "A diff belongs to the client whose openDiff call opened it." + facts: "closeAllDiffTabs {} at the start of every user prompt ... must touch only the diffs this integration opened."`
	sSurvives  = `spec 000: "A diff that the user accepted before the reconnect stays open, the same as a diff whose Claude exited."`
)

// step is one row of the diff state machine walk: an action or an expectation.
type step struct {
	do   string
	spec string
	run  func(w *world)
}

// TestDiffStateMachineSteps walks two (then three) Claude clients through every diff rule. After
// every step the file on disk must hold what the test (as the CLI) last wrote: the bridge never
// writes it.
func TestDiffStateMachineSteps(t *testing.T) {
	const (
		proposal = "proposal\n"
		edited   = "proposal\nwith the user's edit\n"
	)
	steps := []step{
		// Ownership, accept, and what other clients cannot do to an accepted diff.
		{"connect A", sConn, connectAs("A")},
		{"connect B", sConn, connectAs("B")},
		{"A openDiff T1", sBlocks, openDiff("a1", "A", "T1", proposal)},
		{"a1 still waits for the user", sBlocks, waiting("a1")},
		{"user accepts T1 with an edit", sSaved, accept("T1", edited)},
		{"a1 answers FILE_SAVED with the final text", sSaved, answered("a1", "FILE_SAVED", edited)},
		{"T1 stays, accepted, owned by A", sConn, diffs("T1 accepted A")},
		{"B close_tab T1 answers TAB_CLOSED", sTabClosed, closeTab("B", "T1")},
		{"T1 stays for A", sStays, diffs("T1 accepted A")},
		{"the editor closed nothing", sStays, closes()},
		{"B openDiff T1 fails at once with -32000", sRefuse, openDiffRefused("B", "T1", "other\n")},
		{"T1 stays accepted for A", sRefuse, diffs("T1 accepted A")},
		{"B closeAllDiffTabs closes and counts nothing", sCount, closeAll("B", 0)},
		{"the editor closed nothing", sCount, closes()},
		{"A disconnects", sSurvives, disconnect("A")},
		{"T1 survives its client's disconnect", sSurvives, diffs("T1 accepted A")},
		{"the editor closed nothing", sSurvives, closes()},
		{"A reconnects as A2", sConn, connectAs("A2")},
		{"A2 close_tab T1 answers TAB_CLOSED", sTabClosed, closeTab("A2", "T1")},
		{"A2 does not own T1: it stays", sConn, diffs("T1 accepted A")},
		{"A2 closeAllDiffTabs counts nothing", sConn, closeAll("A2", 0)},
		{"A2 openDiff T1 fails with -32000", sRefuse, openDiffRefused("A2", "T1", "other\n")},
		{"the editor closed nothing", sConn, closes()},
		{"user closes all diffs; the file lacks the text, so it goes into the buffer", sUserClose, userCloseAll(1, "T1")},
		{"the editor's buffer holds the accepted text", sUserClose, buffer(edited)},
		{"the editor closed T1", sUserClose, closes("T1")},
		{"no diff is left", sUserClose, diffs()},

		// Reject.
		{"A2 openDiff T2", sBlocks, openDiff("a2", "A2", "T2", proposal)},
		{"user rejects T2", sRejected, reject("T2")},
		{"a2 answers DIFF_REJECTED with the tab name", sRejected, answered("a2", "DIFF_REJECTED", "T2")},
		{"the editor closed T2", sRejected, closes("T2")},

		// Replacement by the same tab_name.
		{"A2 openDiff T3 v1", sReplace, openDiff("a3", "A2", "T3", "v1\n")},
		{"A2 openDiff T3 v2 replaces it", sReplace, openDiff("a3b", "A2", "T3", "v2\n")},
		{"the replaced call is settled as rejected", sSettle, answered("a3", "DIFF_REJECTED", "T3")},
		{"the replacement still waits", sBlocks, waiting("a3b")},
		{"the editor closed nothing (closing T3 would close the new view)", sReplace, closes()},
		{"user accepts T3", sSaved, accept("T3", "v2\n")},
		{"a3b answers FILE_SAVED", sSaved, answered("a3b", "FILE_SAVED", "v2\n")},
		{"A2 openDiff T3 again: its own accepted diff is replaced, not refused", sReplace, openDiff("a3c", "A2", "T3", "v3\n")},
		{"T3 is pending again", sReplace, diffs("T3 pending A2")},

		// close_tab: exact names, and a pending diff is settled, never accepted.
		{"A2 close_tab T closes nothing (not an exact name)", sExact, closeTab("A2", "T")},
		{"A2 close_tab T3-nope closes nothing", sExact, closeTab("A2", "T3-nope")},
		{"the editor closed nothing", sExact, closes()},
		{"A2 close_tab T3", sExact, closeTab("A2", "T3")},
		{"a3c is settled as rejected", sSettle, answered("a3c", "DIFF_REJECTED", "T3")},
		{"the editor closed exactly T3", sExact, closes("T3")},
		{"a late accept of T3 is refused", sSettle, acceptFails("T3")},

		// Owner's close_tab of its accepted diff.
		{"A2 openDiff T4", sBlocks, openDiff("a4", "A2", "T4", proposal)},
		{"user accepts T4", sSaved, accept("T4", proposal)},
		{"a4 answers FILE_SAVED", sSaved, answered("a4", "FILE_SAVED", proposal)},
		{"A2 close_tab T4 closes its own accepted diff", sExact, closeTab("A2", "T4")},
		{"the editor closed T4", sExact, closes("T4")},
		{"no diff is left", sExact, diffs()},

		// closeAllDiffTabs closes and counts the caller's diffs only.
		{"B openDiff T6", sBlocks, openDiff("b6", "B", "T6", "t6\n")},
		{"user accepts T6", sSaved, accept("T6", "t6\n")},
		{"b6 answers FILE_SAVED", sSaved, answered("b6", "FILE_SAVED", "t6\n")},
		{"A2 openDiff T5", sBlocks, openDiff("a5", "A2", "T5", proposal)},
		{"A2 openDiff T7", sBlocks, openDiff("a7", "A2", "T7", proposal)},
		{"user accepts T7", sSaved, accept("T7", proposal)},
		{"a7 answers FILE_SAVED", sSaved, answered("a7", "FILE_SAVED", proposal)},
		{"A2 closeAllDiffTabs closes T5 and T7, not B's T6", sCount, closeAll("A2", 2)},
		{"a5 is settled as rejected", sSettle, answered("a5", "DIFF_REJECTED", "T5")},
		{"the editor closed T5 and T7", sCount, closes("T5", "T7")},
		{"T6 stays for B", sCount, diffs("T6 accepted B")},

		// The CLI sends closeAllDiffTabs at the start of every prompt: one session's prompt must
		// not reject the diff another session is waiting on.
		{"B openDiff T8", sBlocks, openDiff("b8", "B", "T8", "t8\n")},
		{"A2 closeAllDiffTabs (A2's next prompt) counts nothing", sOwnPrompt, closeAll("A2", 0)},
		{"b8 still waits for the user", sOwnPrompt, waiting("b8")},
		{"the editor closed nothing", sOwnPrompt, closes()},
		{"B close_tab T8 (B answered in its terminal)", sSettle, closeTab("B", "T8")},
		{"b8 is settled as rejected", sSettle, answered("b8", "DIFF_REJECTED", "T8")},
		{"the editor closed T8", sExact, closes("T8")},
		{"T6 stays for B", sCount, diffs("T6 accepted B")},

		// Another client's pending diff is replaced like one's own (the exception is only for
		// accepted diffs), and then belongs to the new caller.
		{"B openDiff T10", sBlocks, openDiff("b10", "B", "T10", proposal)},
		{"A2 openDiff T10 replaces B's pending diff", sReplace, openDiff("a10", "A2", "T10", "v2\n")},
		{"b10 is settled as rejected", sSettle, answered("b10", "DIFF_REJECTED", "T10")},
		{"T10 belongs to A2 now", sConn, diffs("T6 accepted B", "T10 pending A2")},
		{"A2 close_tab T10", sExact, closeTab("A2", "T10")},
		{"a10 is settled as rejected", sSettle, answered("a10", "DIFF_REJECTED", "T10")},
		{"the editor closed exactly T10", sExact, closes("T10")},

		// Disconnect settles pending diffs and keeps accepted ones.
		{"B openDiff T8", sBlocks, openDiff("b8", "B", "T8", proposal)},
		{"B disconnects", sSettle, disconnect("B")},
		{"b8 never got an answer, and no accept", sSettle, unanswered("b8")},
		{"the editor closed T8 only", sSettle, closes("T8")},
		{"a late accept of T8 is refused", sSettle, acceptFails("T8")},
		{"B's accepted T6 survives", sSurvives, diffs("T6 accepted B")},

		// The user's close-all: an accepted diff whose file holds the text just closes; pending
		// diffs are rejected.
		{"B's CLI writes the accepted text", sNoWrite, cliWrites("t6\n")},
		{"A2 openDiff T9", sBlocks, openDiff("a9", "A2", "T9", proposal)},
		{"user closes all diffs: T6 (file holds the text) and T9 (pending)", sUserClose, userCloseAll(2)},
		{"a9 is settled as rejected", sSettle, answered("a9", "DIFF_REJECTED", "T9")},
		{"the editor closed T6 and T9", sUserClose, closes("T6", "T9")},
		{"nothing new went into the buffer", sUserClose, buffer(edited)},
		{"no diff is left", sUserClose, diffs()},

		// Shutting the bridge down settles what is pending, never as an accept.
		{"A2 openDiff T11", sBlocks, openDiff("a11", "A2", "T11", proposal)},
		{"the bridge shuts down", sSettle, shutdown()},
		{"a11 is settled as rejected", sSettle, answered("a11", "DIFF_REJECTED", "T11")},
	}

	w := newWorld(t)
	for i, s := range steps {
		w.now = fmt.Sprintf("step %d %q (%s)", i+1, s.do, s.spec)
		s.run(w)
		if got, _ := os.ReadFile(w.path); string(got) != w.disk {
			t.Fatalf("%s: the file holds %q, want %q: %s", w.now, got, w.disk, sNoWrite)
		}
	}
}

type answer struct {
	texts []string
	err   error
}

// world is the state the steps act on: one bridge, its test editor, named clients and calls.
type world struct {
	t         *testing.T
	b         *bridge.Bridge
	ed        *testEditor
	path      string // every diff is on this file
	disk      string // what the file must hold
	now       string // the running step, for messages
	clients   map[string]*probe.Client
	ids       map[string]ide.ClientID
	names     map[ide.ClientID]string
	calls     map[string]chan answer
	connected chan ide.ClientID
	gone      chan ide.ClientID
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, clients: map[string]*probe.Client{}, ids: map[string]ide.ClientID{},
		names: map[ide.ClientID]string{}, calls: map[string]chan answer{},
		connected: make(chan ide.ClientID, 16), gone: make(chan ide.ClientID, 16)}
	w.b, w.ed = startWith(t, func(c *bridge.Config) {
		c.Events.ClientConnected = func(id ide.ClientID, _ int) { w.connected <- id }
		c.Events.ClientDisconnected = func(id ide.ClientID, _ int) { w.gone <- id }
	})
	w.path = filepath.Join(w.b.Model.Folders()[0], "file.txt")
	w.disk = "original\n"
	if err := os.WriteFile(w.path, []byte(w.disk), 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) fatalf(format string, args ...any) {
	w.t.Helper()
	w.t.Fatalf("%s: %s", w.now, fmt.Sprintf(format, args...))
}

func connectAs(name string) func(*world) {
	return func(w *world) {
		w.clients[name] = connect(w.t, w.b)
		select {
		case id := <-w.connected:
			w.ids[name], w.names[id] = id, name
		case <-ctxT(w.t).Done():
			w.fatalf("the bridge never saw the handshake")
		}
	}
}

// disconnect closes the client and waits until the bridge has dealt with it.
func disconnect(name string) func(*world) {
	return func(w *world) {
		w.clients[name].Close()
		select {
		case id := <-w.gone:
			if id != w.ids[name] {
				w.fatalf("client %d went, want %s", id, name)
			}
		case <-ctxT(w.t).Done():
			w.fatalf("the bridge never saw %s go", name)
		}
	}
}

// openDiff starts a blocking openDiff call and waits until the editor shows it.
func openDiff(call, client, tab, text string) func(*world) {
	return func(w *world) {
		ch := make(chan answer, 1)
		w.calls[call] = ch
		c := w.clients[client]
		go func() {
			r, err := c.Tool(ctxT(w.t), "openDiff", map[string]any{"old_file_path": w.path, "new_file_path": w.path, "new_file_contents": text, "tab_name": tab})
			if err != nil {
				ch <- answer{err: err}
				return
			}
			ch <- answer{texts: r.Texts()}
		}()
		select {
		case p := <-w.ed.shown:
			if p.TabName != tab || p.NewContents.String() != text || p.FilePath != w.path {
				w.fatalf("editor shown %+v", p)
			}
		case a := <-ch:
			w.fatalf("openDiff answered %+v without showing the diff", a)
		case <-ctxT(w.t).Done():
			w.fatalf("the editor was never asked to show %s", tab)
		}
	}
}

func openDiffRefused(client, tab, text string) func(*world) {
	return func(w *world) {
		_, err := w.clients[client].Tool(ctxT(w.t), "openDiff", map[string]any{"old_file_path": w.path, "new_file_path": w.path, "new_file_contents": text, "tab_name": tab})
		if rpcCode(err) != -32000 {
			w.fatalf("got %v, want error -32000", err)
		}
		select {
		case p := <-w.ed.shown:
			w.fatalf("a refused openDiff was shown: %+v", p)
		default:
		}
	}
}

func waiting(call string) func(*world) {
	return func(w *world) {
		select {
		case a := <-w.calls[call]:
			w.fatalf("%s answered %+v before the user decided", call, a)
		default:
		}
	}
}

func answered(call string, texts ...string) func(*world) {
	return func(w *world) {
		select {
		case a := <-w.calls[call]:
			if a.err != nil || strings.Join(a.texts, "|") != strings.Join(texts, "|") {
				w.fatalf("%s answered %q (err %v), want %q", call, a.texts, a.err, texts)
			}
		case <-ctxT(w.t).Done():
			w.fatalf("%s never answered", call)
		}
	}
}

// unanswered: the call's connection is gone; it must end without any result.
func unanswered(call string) func(*world) {
	return func(w *world) {
		select {
		case a := <-w.calls[call]:
			if a.err == nil {
				w.fatalf("%s answered %q over a closed connection", call, a.texts)
			}
		case <-ctxT(w.t).Done():
			w.fatalf("%s never ended", call)
		}
	}
}

func accept(tab, text string) func(*world) {
	return func(w *world) {
		if err := w.b.Model.DiffAccepted(tab, text); err != nil {
			w.fatalf("accept: %v", err)
		}
	}
}

func acceptFails(tab string) func(*world) {
	return func(w *world) {
		if err := w.b.Model.DiffAccepted(tab, "late\n"); err == nil {
			w.fatalf("a settled diff was accepted")
		}
	}
}

func reject(tab string) func(*world) {
	return func(w *world) {
		if err := w.b.Model.DiffRejected(tab); err != nil {
			w.fatalf("reject: %v", err)
		}
	}
}

func closeTab(client, tab string) func(*world) {
	return func(w *world) {
		r := tool(w.t, w.clients[client], "close_tab", map[string]any{"tab_name": tab})
		if strings.Join(r.Texts(), "|") != "TAB_CLOSED" || r.IsError {
			w.fatalf("close_tab answered %+v, want TAB_CLOSED", r)
		}
	}
}

func closeAll(client string, n int) func(*world) {
	return func(w *world) {
		r := tool(w.t, w.clients[client], "closeAllDiffTabs", nil)
		if want := fmt.Sprintf("CLOSED_%d_DIFF_TABS", n); strings.Join(r.Texts(), "|") != want || r.IsError {
			w.fatalf("closeAllDiffTabs answered %+v, want %s", r, want)
		}
	}
}

// userCloseAll is the user's "close all diffs"; restoredTabs names the diffs whose text had to
// go into the buffer (all on w.path).
func userCloseAll(n int, restoredTabs ...string) func(*world) {
	return func(w *world) {
		closed, restored, err := w.b.Model.CloseAllDiffs()
		if err != nil || closed != n || len(restored) != len(restoredTabs) {
			w.fatalf("closed %d, restored %v, err %v; want %d closed, %d restored", closed, restored, err, n, len(restoredTabs))
		}
		for _, p := range restored {
			if p != w.path {
				w.fatalf("restored %s, want %s", p, w.path)
			}
		}
	}
}

// closes checks the editor's CloseDiff calls since the last check, exactly.
func closes(tabs ...string) func(*world) {
	return func(w *world) {
		var got []string
		for {
			select {
			case tab := <-w.ed.closed:
				got = append(got, tab)
				continue
			default:
			}
			break
		}
		sort.Strings(got)
		sort.Strings(tabs)
		if strings.Join(got, "|") != strings.Join(tabs, "|") {
			w.fatalf("editor closed %q, want exactly %q", got, tabs)
		}
	}
}

// diffs checks the open diffs, each "tab state owner".
func diffs(want ...string) func(*world) {
	return func(w *world) {
		var got []string
		for _, d := range w.b.Model.Diffs() {
			got = append(got, d.TabName+" "+d.State+" "+w.names[d.Owner])
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			w.fatalf("diffs %q, want %q", got, want)
		}
	}
}

func buffer(text string) func(*world) {
	return func(w *world) {
		got := w.ed.bufferText()
		if len(got) != 1 || got[w.path] != text {
			w.fatalf("editor buffers %q, want %s = %q", got, w.path, text)
		}
	}
}

func shutdown() func(*world) {
	return func(w *world) {
		if err := w.b.Close(); err != nil {
			w.fatalf("close: %v", err)
		}
	}
}

// cliWrites plays the CLI writing an accepted diff's text, as it does after FILE_SAVED.
func cliWrites(text string) func(*world) {
	return func(w *world) {
		if err := os.WriteFile(w.path, []byte(text), 0o600); err != nil {
			w.fatalf("%v", err)
		}
		w.disk = text
	}
}
