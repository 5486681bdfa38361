package ide_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// The diff rules, walked step by step against ide.Model directly: no sockets, no sessions. The
// steps act as the Claude sessions do (tools/call through Model.CallTool, a client's end through
// Model.Disconnect or the end of a call's context) and as the editor does (the user's decisions
// through Model.Decide with the number of the proposal shown, as every editor does; ShowDiff
// answered by an in-memory recorder). Only the Model's public behaviour is used, so a change of
// its internals does not touch these tests.
// What only a socket can show (auth, framing, the CLI's handshake, a disconnect over a real
// connection, answers reaching the wire) stays in internal/bridge.

// The sentences each step checks (spec 000 and claude-cli-facts.md).
const (
	sConn      = `spec 000: "Each WebSocket connection is a separate client. A diff belongs to the client whose openDiff call opened it. A Claude CLI that reconnects is a new client, so it does not own the diffs it opened before."`
	sBlocks    = `spec 000: "The openDiff tool is blocking and waits for user interaction"`
	sSaved     = `facts: "[{text:"FILE_SAVED"}, {text:<final file contents>}]: accepted with those contents (user edits included)."`
	sRejected  = `facts: "[{text:"DIFF_REJECTED"}, {text:<tab_name>}]: denied"`
	sNoWrite   = `facts: "The CLI writes the file itself. The server must NOT write it"`
	sWrite     = `facts: "Both paths are the same absolute path; for Write the file may not exist."`
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
	sShown     = `issue 15 item 4: a reviewer never answers a new proposal with the text of the one it displayed (ide.Model.Decide: "A proposal that a same-name openDiff replaced, that was closed or already answered, is refused with CodeUnknownDiff and nothing is settled")`
	sAsIs      = `docs/editor-protocol.md diffAccepted: "(no contents): the user accepted proposal 17 without any change; Claude gets FILE_SAVED with the text it proposed, exactly as it sent it."`
	sFailed    = `facts: "anything else, isError, or a JSON-RPC error: "Failed to show diff in IDE"; the terminal permission prompt stays."`
	sLimit     = `facts: "Messages over 16 MiB from the server close it."`
	// The spec keeps only another client's accepted diff from close_tab; issue 25 item 7 keeps
	// its pending one too (as closeAllDiffTabs does): the session waiting on it must not be
	// answered DIFF_REJECTED by another session's close_tab.
	sOtherPending = `issue 25 item 7: "close_tab from another client does not reject a pending diff it does not own"`
)

// step is one row of a scenario: an action or an expectation, with the rule it comes from.
type step struct {
	do   string
	rule string
	run  func(w *world)
}

const (
	proposal = "proposal\n"
	edited   = "proposal\nwith the user's edit\n"
)

// The scenarios, each on a fresh Model. After every step the file on disk must hold what the
// test (as the CLI) last wrote there: the Model never writes it (sNoWrite).
var diffScenarios = []struct {
	name  string
	caps  func(*ide.Capabilities)
	steps []step
}{
	{name: "accept, and what other clients cannot do to an accepted diff", steps: []step{
		{"connect A", sConn, connect("A")},
		{"connect B", sConn, connect("B")},
		{"A openDiff T1", sBlocks, openDiff("a1", "A", "T1", proposal)},
		{"the editor was told the file exists", sWrite, fileExists("a1", true)},
		{"a1 still waits for the user", sBlocks, waiting("a1")},
		{"user accepts T1 with an edit", sSaved, accept("a1", edited)},
		{"a1 answers FILE_SAVED with the final text", sSaved, answered("a1", "FILE_SAVED", edited)},
		{"T1 stays, accepted, owned by A", sConn, diffs("T1 accepted A")},
		{"a second accept of T1 is refused", sSaved, acceptFails("a1")},
		{"B close_tab T1 answers TAB_CLOSED", sTabClosed, closeTab("B", "T1")},
		{"T1 stays for A", sStays, diffs("T1 accepted A")},
		{"the editor closed nothing", sStays, closes()},
		{"B openDiff T1 fails at once with -32000", sRefuse, openDiffRefused("B", "T1", "other\n")},
		{"T1 stays accepted for A", sRefuse, diffs("T1 accepted A")},
		{"B closeAllDiffTabs closes and counts nothing", sCount, closeAll("B", 0)},
		{"the editor closed nothing", sCount, closes()},
		{"A close_tab T1 closes its own accepted diff", sExact, closeTab("A", "T1")},
		{"the editor closed T1", sExact, closes("T1")},
		{"no diff is left", sExact, diffs()},
	}},
	{name: "reject", steps: []step{
		{"connect A", sConn, connect("A")},
		{"A openDiff T2", sBlocks, openDiff("a2", "A", "T2", proposal)},
		{"user rejects T2", sRejected, reject("a2")},
		{"a2 answers DIFF_REJECTED with the tab name", sRejected, answered("a2", "DIFF_REJECTED", "T2")},
		{"the editor closed T2", sRejected, closes("T2")},
		{"a late accept of T2 is refused", sSettle, acceptFails("a2")},
		{"no diff is left", sRejected, diffs()},
	}},
	{name: "a Write: the file does not exist yet", steps: []step{
		{"connect A", sConn, connect("A")},
		{"the file is not there", sWrite, removeFile()},
		{"A openDiff W", sWrite, openDiff("w", "A", "W", proposal)},
		{"the editor was told the file does not exist", sWrite, fileExists("w", false)},
		{"user accepts W as proposed: no text sent back", sAsIs, acceptAsProposed("w")},
		{"w answers FILE_SAVED", sSaved, answered("w", "FILE_SAVED", proposal)},
	}},
	{name: "replacement by the same tab_name", steps: []step{
		{"connect A", sConn, connect("A")},
		{"connect B", sConn, connect("B")},
		{"A openDiff T3 v1", sReplace, openDiff("v1", "A", "T3", "v1\n")},
		{"A openDiff T3 v2 replaces it", sReplace, openDiff("v2", "A", "T3", "v2\n")},
		{"the replaced call is answered DIFF_REJECTED", sSettle, answered("v1", "DIFF_REJECTED", "T3")},
		{"the replacement still waits", sBlocks, waiting("v2")},
		{"the editor closed nothing (closing T3 would close the new view)", sReplace, closes()},
		{"an accept of the displayed v1 is refused", sShown, acceptFails("v1")},
		{"a reject of the displayed v1 is refused", sShown, rejectFails("v1")},
		{"v2 still waits", sShown, waiting("v2")},
		{"T3 is v2, pending", sShown, pending("v2", true)},
		{"v1 is no longer pending", sShown, pending("v1", false)},
		{"user accepts v2 as displayed", sSaved, accept("v2", "v2\n")},
		{"v2 answers FILE_SAVED", sSaved, answered("v2", "FILE_SAVED", "v2\n")},
		{"A openDiff T3 again: its own accepted diff is replaced, not refused", sReplace, openDiff("v3", "A", "T3", "v3\n")},
		{"T3 is pending again", sReplace, diffs("T3 pending A")},
		{"B openDiff T3 replaces A's pending diff (only accepted ones are kept)", sReplace, openDiff("b3", "B", "T3", "b\n")},
		{"v3 is answered DIFF_REJECTED", sSettle, answered("v3", "DIFF_REJECTED", "T3")},
		{"T3 belongs to B now", sConn, diffs("T3 pending B")},
		{"A close_tab T3: another client's pending diff stays too", sOtherPending, closeTab("A", "T3")},
		{"b3 still waits for the user", sOtherPending, waiting("b3")},
		{"T3 is still B's", sOtherPending, diffs("T3 pending B")},
		{"B close_tab T3: its own diff closes", sExact, closeTab("B", "T3")},
		{"b3 is settled as rejected", sSettle, answered("b3", "DIFF_REJECTED", "T3")},
		{"the editor closed T3", sExact, closes("T3")},
	}},
	{name: "close_tab: exact names, pending settled as rejected", steps: []step{
		{"connect A", sConn, connect("A")},
		{"A openDiff T3", sBlocks, openDiff("a3", "A", "T3", proposal)},
		{"A close_tab T closes nothing (not an exact name)", sExact, closeTab("A", "T")},
		{"A close_tab T3-nope closes nothing", sExact, closeTab("A", "T3-nope")},
		{"A close_tab t3 closes nothing (case matters)", sExact, closeTab("A", "t3")},
		{"the editor closed nothing", sExact, closes()},
		{"a3 still waits", sExact, waiting("a3")},
		{"A close_tab T3", sExact, closeTab("A", "T3")},
		{"a3 is settled as rejected", sSettle, answered("a3", "DIFF_REJECTED", "T3")},
		{"the editor closed exactly T3", sExact, closes("T3")},
		{"a late accept of T3 is refused", sSettle, acceptFails("a3")},
		{"a late reject of T3 is refused", sSettle, rejectFails("a3")},
		{"no diff is left", sExact, diffs()},
	}},
	{name: "closeAllDiffTabs closes and counts the caller's diffs only", steps: []step{
		{"connect A", sConn, connect("A")},
		{"connect B", sConn, connect("B")},
		{"B openDiff T6", sBlocks, openDiff("b6", "B", "T6", "t6\n")},
		{"user accepts T6", sSaved, accept("b6", "t6\n")},
		{"b6 answers FILE_SAVED", sSaved, answered("b6", "FILE_SAVED", "t6\n")},
		{"B openDiff T8", sBlocks, openDiff("b8", "B", "T8", "t8\n")},
		{"A openDiff T5", sBlocks, openDiff("a5", "A", "T5", proposal)},
		{"A openDiff T7", sBlocks, openDiff("a7", "A", "T7", proposal)},
		{"user accepts T7", sSaved, accept("a7", proposal)},
		{"a7 answers FILE_SAVED", sSaved, answered("a7", "FILE_SAVED", proposal)},
		{"A closeAllDiffTabs closes T5 and T7, not B's T6 or T8", sCount, closeAll("A", 2)},
		{"a5 is settled as rejected", sSettle, answered("a5", "DIFF_REJECTED", "T5")},
		{"the editor closed T5 and T7", sCount, closes("T5", "T7")},
		{"B's diffs stay", sCount, diffs("T6 accepted B", "T8 pending B")},
		{"b8 still waits for the user: A's next prompt did not reject it", sOwnPrompt, waiting("b8")},
		{"A closeAllDiffTabs again counts nothing", sOwnPrompt, closeAll("A", 0)},
		{"B closeAllDiffTabs closes T6 and T8", sCount, closeAll("B", 2)},
		{"b8 is settled as rejected", sSettle, answered("b8", "DIFF_REJECTED", "T8")},
		{"the editor closed T6 and T8", sCount, closes("T6", "T8")},
		{"no diff is left", sCount, diffs()},
	}},
	{name: "disconnect settles pending diffs and keeps accepted ones", steps: []step{
		{"connect A", sConn, connect("A")},
		{"connect B", sConn, connect("B")},
		{"B openDiff T6", sBlocks, openDiff("b6", "B", "T6", "t6\n")},
		{"user accepts T6", sSaved, accept("b6", "t6\n")},
		{"b6 answers FILE_SAVED", sSaved, answered("b6", "FILE_SAVED", "t6\n")},
		{"B openDiff T8", sBlocks, openDiff("b8", "B", "T8", proposal)},
		{"A openDiff T9", sBlocks, openDiff("a9", "A", "T9", proposal)},
		{"B disconnects", sSettle, disconnect("B")},
		{"b8 is settled as rejected, never accepted", sSettle, answered("b8", "DIFF_REJECTED", "T8")},
		{"the editor closed T8 only", sSettle, closes("T8")},
		{"a late accept of T8 is refused", sSettle, acceptFails("b8")},
		{"B's accepted T6 survives; A's T9 is untouched", sSurvives, diffs("T6 accepted B", "T9 pending A")},
		{"a9 still waits", sConn, waiting("a9")},
		{"B reconnects as B2", sConn, connect("B2")},
		{"B2 close_tab T6 answers TAB_CLOSED", sTabClosed, closeTab("B2", "T6")},
		{"B2 does not own T6: it stays", sConn, diffs("T6 accepted B", "T9 pending A")},
		{"B2 closeAllDiffTabs counts nothing", sConn, closeAll("B2", 0)},
		{"B2 openDiff T6 fails with -32000", sRefuse, openDiffRefused("B2", "T6", "other\n")},
		{"the editor closed nothing", sConn, closes()},
		{"a disconnect of a client with nothing open changes nothing", sConn, disconnect("B2")},
		{"the diffs are as they were", sConn, diffs("T6 accepted B", "T9 pending A")},
		{"A disconnects too", sSettle, disconnect("A")},
		{"a9 is settled as rejected", sSettle, answered("a9", "DIFF_REJECTED", "T9")},
		{"the editor closed T9 only", sSettle, closes("T9")},
		{"T6 still survives", sSurvives, diffs("T6 accepted B")},
	}},
	{name: "a call whose connection ends is settled, never accepted", steps: []step{
		{"connect A", sConn, connect("A")},
		{"A openDiff T8", sBlocks, openDiff("a8", "A", "T8", proposal)},
		{"A openDiff T9", sBlocks, openDiff("a9", "A", "T9", proposal)},
		{"user accepts T9", sSaved, accept("a9", proposal)},
		{"a9 answers FILE_SAVED", sSaved, answered("a9", "FILE_SAVED", proposal)},
		{"a8's connection ends under it", sSettle, callEnds("a8")},
		{"a8 ended, settled as rejected", sSettle, ended("a8")},
		{"the editor closed T8", sSettle, closes("T8")},
		{"a late accept of T8 is refused", sSettle, acceptFails("a8")},
		{"the accepted T9 stays", sSurvives, diffs("T9 accepted A")},
	}},
	{name: "the user closes all diffs", steps: []step{
		{"connect A", sConn, connect("A")},
		{"connect B", sConn, connect("B")},
		{"A openDiff T1", sBlocks, openDiff("a1", "A", "T1", proposal)},
		{"user accepts T1 with an edit", sSaved, accept("a1", edited)},
		{"a1 answers FILE_SAVED", sSaved, answered("a1", "FILE_SAVED", edited)},
		{"A disconnects before its CLI writes the file", sSurvives, disconnect("A")},
		{"T1 survives", sSurvives, diffs("T1 accepted A")},
		{"B openDiff T9", sBlocks, openDiff("b9", "B", "T9", proposal)},
		{"user closes all diffs; the file lacks T1's text, so it goes into the buffer", sUserClose, userCloseAll(2, "T1")},
		{"b9 is settled as rejected", sSettle, answered("b9", "DIFF_REJECTED", "T9")},
		{"the editor's buffer holds the accepted text", sUserClose, buffer(edited)},
		{"the editor closed T1 and T9", sUserClose, closes("T1", "T9")},
		{"no diff is left", sUserClose, diffs()},
		{"B openDiff T6", sBlocks, openDiff("b6", "B", "T6", "t6\n")},
		{"user accepts T6", sSaved, accept("b6", "t6\n")},
		{"b6 answers FILE_SAVED", sSaved, answered("b6", "FILE_SAVED", "t6\n")},
		{"B's CLI writes the accepted text", sNoWrite, cliWrites("t6\n")},
		{"user closes all diffs: the file holds T6's text, so it just closes", sUserClose, userCloseAll(1)},
		{"nothing new went into the buffer", sUserClose, buffer(edited)},
		{"the editor closed T6", sUserClose, closes("T6")},
		{"no diff is left", sUserClose, diffs()},
	}},
	{name: "the user closes all diffs in an editor that cannot hold unsaved text",
		caps: func(c *ide.Capabilities) { c.SetBufferText = false }, steps: []step{
			{"connect A", sConn, connect("A")},
			{"A openDiff T1", sBlocks, openDiff("a1", "A", "T1", proposal)},
			{"user accepts T1", sSaved, accept("a1", edited)},
			{"a1 answers FILE_SAVED", sSaved, answered("a1", "FILE_SAVED", edited)},
			{"user closes all diffs: T1's text could go nowhere, so it stays open, with an error", sUserClose, userCloseAllFails(0)},
			{"the editor closed nothing", sUserClose, closes()},
			{"T1 stays", sUserClose, diffs("T1 accepted A")},
			{"A close_tab T1: the owner may close it (its CLI writes the file)", sExact, closeTab("A", "T1")},
			{"the editor closed T1", sExact, closes("T1")},
		}},
	{name: "shutdown settles pending diffs as rejected", steps: []step{
		{"connect A", sConn, connect("A")},
		{"A openDiff T1", sBlocks, openDiff("a1", "A", "T1", proposal)},
		{"user accepts T1", sSaved, accept("a1", proposal)},
		{"a1 answers FILE_SAVED", sSaved, answered("a1", "FILE_SAVED", proposal)},
		{"A openDiff T11", sBlocks, openDiff("a11", "A", "T11", proposal)},
		{"the bridge shuts down", sSettle, shutdown()},
		{"a11 is settled as rejected", sSettle, answered("a11", "DIFF_REJECTED", "T11")},
		{"a late accept of T11 is refused", sSettle, acceptFails("a11")},
		{"an openDiff after shutdown fails at once", sFailed, openDiffFails("A", "T12", proposal, -32000)},
	}},
	{name: "the editor goes away while showing a diff", steps: []step{
		{"connect A", sConn, connect("A")},
		{"the editor will go away while showing T1", sSettle, showFails("T1", fmt.Errorf("stdio: %w", ide.ErrEditorGone))},
		{"A openDiff T1 is answered DIFF_REJECTED: the user cannot accept it any more", sSettle, openDiffAnswered("A", "T1", "DIFF_REJECTED", "T1")},
		{"no diff is left", sSettle, diffs()},
		{"the editor will refuse to show T2", sFailed, showFails("T2", errors.New("no window for the diff"))},
		{"A openDiff T2 is a tool error: the CLI keeps its terminal prompt", sFailed, openDiffToolError("A", "T2", "no window for the diff")},
		{"no diff is left", sFailed, diffs()},
	}},
	{name: "settled while the editor is still showing it", steps: []step{
		{"connect A", sConn, connect("A")},
		{"the editor will take its time showing T1", sBlocks, holdShow("T1")},
		{"A openDiff T1 (the editor is still busy showing it)", sBlocks, openDiff("a1", "A", "T1", proposal)},
		{"A close_tab T1 meanwhile", sSettle, closeTab("A", "T1")},
		{"the editor closed T1", sSettle, closes("T1")},
		{"the editor finishes showing T1", sSettle, releaseShow("T1", nil)},
		{"a1 is answered DIFF_REJECTED", sSettle, answered("a1", "DIFF_REJECTED", "T1")},
		{"the editor will take its time showing T2", sBlocks, holdShow("T2")},
		{"A openDiff T2", sBlocks, openDiff("a2", "A", "T2", proposal)},
		{"the bridge shuts down meanwhile", sSettle, shutdown()},
		{"the editor goes away before it has shown T2", sSettle, releaseShow("T2", ide.ErrEditorGone)},
		{"a2 is answered DIFF_REJECTED, not an error", sSettle, answered("a2", "DIFF_REJECTED", "T2")},
		{"no diff is left", sSettle, diffs()},
	}},
	{name: "an accepted text over the CLI's message limit is refused, and the diff stays pending", steps: []step{
		{"connect A", sConn, connect("A")},
		{"A openDiff T1", sBlocks, openDiff("a1", "A", "T1", proposal)},
		{"user accepts T1 with a text over 15 MiB: refused with -32602", sLimit, acceptTooBig("a1")},
		{"a1 still waits", sLimit, waiting("a1")},
		{"T1 is still pending", sLimit, diffs("T1 pending A")},
		{"user accepts T1 with a normal text", sSaved, accept("a1", edited)},
		{"a1 answers FILE_SAVED", sSaved, answered("a1", "FILE_SAVED", edited)},
	}},
}

// TestDiffRuleSteps runs every scenario on a Model of its own, in parallel.
func TestDiffRuleSteps(t *testing.T) {
	t.Parallel()
	for _, sc := range diffScenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, sc.caps)
			for i, s := range sc.steps {
				w.now = fmt.Sprintf("step %d %q (%s)", i+1, s.do, s.rule)
				s.run(w)
				w.checkDisk()
			}
			w.noneLeft()
		})
	}
}

// bound caps every wait: generous, because the machine running the tests may be loaded; a
// passing run never waits for it.
const bound = 10 * time.Second

// recorder is an in-memory ide.Editor for the diff methods: it records what the Model asks and
// can be told to fail or to hold ShowDiff for a tab. Other methods are never called by these
// tests (the nil embedded Editor would panic).
type recorder struct {
	ide.Editor
	shown chan ide.ShowDiffParams

	mu      sync.Mutex
	closed  []string
	buffers map[string]string
	fail    map[string]error      // tab: ShowDiff returns this
	hold    map[string]chan error // tab: ShowDiff waits for the error to return
}

func (r *recorder) ShowDiff(ctx context.Context, p ide.ShowDiffParams) error {
	r.mu.Lock()
	err, hold := r.fail[p.TabName], r.hold[p.TabName]
	r.mu.Unlock()
	if err != nil {
		return err
	}
	r.shown <- p
	if hold != nil {
		select {
		case err := <-hold:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (r *recorder) CloseDiff(ctx context.Context, tab string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = append(r.closed, tab)
	return nil
}

func (r *recorder) SetBufferText(ctx context.Context, path, text string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buffers[path] = text
	return nil
}

// sink is a client that drops notifications: the diff rules send none.
type sink struct{}

func (sink) Send([]byte)       {}
func (sink) SendLatest([]byte) {}

type result struct {
	texts   []string
	isError bool
	err     error
}

// call is one openDiff in flight.
type call struct {
	tab     string
	seq     uint64 // the proposal the editor was shown
	exists  bool   // ShowDiffParams.FileExists
	cancel  context.CancelFunc
	done    chan result
	checked bool // a step saw how it ended
}

// world is what the steps act on: one Model, its editor, named clients and calls.
type world struct {
	t     *testing.T
	m     *ide.Model
	ed    *recorder
	path  string // every diff is on this file
	disk  string // what the file must hold
	now   string // the running step, for messages
	ids   map[string]ide.ClientID
	names map[ide.ClientID]string
	calls map[string]*call
	wg    sync.WaitGroup
}

func newWorld(t *testing.T, caps func(*ide.Capabilities)) *world {
	c := ide.Capabilities{ShowDiff: true, CanCloseTabs: true, SetBufferText: true}
	if caps != nil {
		caps(&c)
	}
	ed := &recorder{shown: make(chan ide.ShowDiffParams, 16), buffers: map[string]string{},
		fail: map[string]error{}, hold: map[string]chan error{}}
	dir := t.TempDir()
	w := &world{t: t, ed: ed, path: filepath.Join(dir, "file.txt"), disk: "original\n",
		m:   ide.New(ed, ide.EditorInfo{Name: "Recorder", Caps: c}, []string{dir}, ide.Events{}, nil),
		ids: map[string]ide.ClientID{}, names: map[ide.ClientID]string{}, calls: map[string]*call{}}
	if err := os.WriteFile(w.path, []byte(w.disk), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // end whatever a failed scenario left running
		for _, c := range w.calls {
			c.cancel()
		}
		w.m.Close()
		w.wg.Wait()
	})
	return w
}

// noFile is w.disk while the file must not exist.
const noFile = "<no file>"

// checkDisk fails unless the file holds what the test last wrote: the Model never writes it.
func (w *world) checkDisk() {
	w.t.Helper()
	got, err := os.ReadFile(w.path)
	if err != nil && errors.Is(err, os.ErrNotExist) {
		got = []byte(noFile)
	}
	if string(got) != w.disk {
		w.fatalf("the file holds %q, want %q: %s", got, w.disk, sNoWrite)
	}
}

func (w *world) fatalf(format string, args ...any) {
	w.t.Helper()
	w.t.Fatalf("%s: %s", w.now, fmt.Sprintf(format, args...))
}

// noneLeft: at the end of a scenario every call's end has been checked by a step.
func (w *world) noneLeft() {
	for name, c := range w.calls {
		if !c.checked {
			w.t.Errorf("no step checked how %s ended", name)
		}
	}
}

func connect(name string) func(*world) {
	return func(w *world) {
		id := w.m.Connect(sink{})
		w.m.Ready(id)
		w.ids[name], w.names[id] = id, name
	}
}

func disconnect(name string) func(*world) {
	return func(w *world) { w.m.Disconnect(w.ids[name]) }
}

func diffArgs(w *world, tab, text string) json.RawMessage {
	b, err := json.Marshal(map[string]string{"old_file_path": w.path, "new_file_path": w.path, "new_file_contents": text, "tab_name": tab})
	if err != nil {
		w.fatalf("%v", err)
	}
	return b
}

// start begins an openDiff tools/call for client as call name.
func (w *world) start(name, client, tab, text string) *call {
	ctx, cancel := context.WithCancel(context.Background())
	c := &call{tab: tab, cancel: cancel, done: make(chan result, 1)}
	w.calls[name] = c
	id := w.ids[client]
	args := diffArgs(w, tab, text)
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		r, err := w.m.CallTool(ctx, id, "openDiff", args)
		c.done <- toResult(r, err)
	}()
	return c
}

func toResult(r *ide.ToolResult, err error) result {
	if err != nil {
		return result{err: err}
	}
	var texts []string
	for _, c := range r.Content {
		if !c.File.IsZero() {
			texts = append(texts, c.File.String())
		} else {
			texts = append(texts, c.Text)
		}
	}
	return result{texts: texts, isError: r.IsError}
}

// openDiff starts a blocking openDiff and waits until the editor is showing it.
func openDiff(name, client, tab, text string) func(*world) {
	return func(w *world) {
		c := w.start(name, client, tab, text)
		select {
		case p := <-w.ed.shown:
			if p.TabName != tab || p.NewContents.String() != text || p.FilePath != w.path || p.NewFilePath != w.path || p.Seq == 0 {
				w.fatalf("editor shown %+v", p)
			}
			c.seq, c.exists = p.Seq, p.FileExists
		case r := <-c.done:
			w.fatalf("openDiff answered %+v without showing the diff", r)
		case <-time.After(bound):
			w.fatalf("the editor was never asked to show %s", tab)
		}
	}
}

// openDiffAnswered runs an openDiff that must be answered at once with texts.
func openDiffAnswered(client, tab string, texts ...string) func(*world) {
	return func(w *world) {
		name := "immediate " + tab
		w.start(name, client, tab, proposal)
		answered(name, texts...)(w)
	}
}

func openDiffToolError(client, tab, contains string) func(*world) {
	return func(w *world) {
		name := "immediate " + tab
		w.start(name, client, tab, proposal)
		r := w.wait(name)
		if r.err != nil || !r.isError || len(r.texts) != 1 || !strings.Contains(r.texts[0], contains) {
			w.fatalf("got %+v, want a tool error naming %q", r, contains)
		}
	}
}

// openDiffFails runs an openDiff that must fail at once with JSON-RPC error code, unshown.
func openDiffFails(client, tab, text string, code int) func(*world) {
	return func(w *world) {
		name := "refused " + tab
		w.start(name, client, tab, text)
		r := w.wait(name)
		if rpcCode(r.err) != code {
			w.fatalf("got %+v, want JSON-RPC error %d", r, code)
		}
		select {
		case p := <-w.ed.shown:
			w.fatalf("a refused openDiff was shown: %+v", p)
		default:
		}
	}
}

func openDiffRefused(client, tab, text string) func(*world) {
	return openDiffFails(client, tab, text, jsonrpc.CodeServerError)
}

func (w *world) wait(name string) result {
	w.t.Helper()
	c := w.calls[name]
	c.checked = true
	select {
	case r := <-c.done:
		return r
	case <-time.After(bound):
		w.fatalf("%s never answered", name)
	}
	panic("unreachable")
}

func fileExists(name string, want bool) func(*world) {
	return func(w *world) {
		if got := w.calls[name].exists; got != want {
			w.fatalf("ShowDiff fileExists %v, want %v", got, want)
		}
	}
}

func waiting(name string) func(*world) {
	return func(w *world) {
		select {
		case r := <-w.calls[name].done:
			w.fatalf("%s answered %+v before the user decided", name, r)
		default:
		}
	}
}

func answered(name string, texts ...string) func(*world) {
	return func(w *world) {
		r := w.wait(name)
		if r.err != nil || r.isError || !slices.Equal(r.texts, texts) {
			w.fatalf("%s answered %q (isError %v, err %v), want %q", name, r.texts, r.isError, r.err, texts)
		}
	}
}

// ended: the call's context ended; it ends settled as rejected (nobody reads that answer) or
// with the context's error, never as an accept.
func ended(name string) func(*world) {
	return func(w *world) {
		r := w.wait(name)
		if !errors.Is(r.err, context.Canceled) && !(r.err == nil && !r.isError && slices.Equal(r.texts, []string{"DIFF_REJECTED", w.calls[name].tab})) {
			w.fatalf("%s ended with %+v, want DIFF_REJECTED or context.Canceled", name, r)
		}
	}
}

// callEnds ends a call's context, as the end of its connection does (jsonrpc.Conn cancels the
// handlers' contexts); ended then waits for the call.
func callEnds(name string) func(*world) {
	return func(w *world) { w.calls[name].cancel() }
}

// decide is the editor's decision on the proposal it displayed for call name, by its number:
// the one path every editor takes (Model.Decide).
func (w *world) decide(name string, d ide.Decision) error {
	return w.m.Decide(w.calls[name].seq, d)
}

func accept(name, text string) func(*world) {
	return func(w *world) {
		if err := w.decide(name, ide.Decision{Accept: true, Text: ide.TextOf(text)}); err != nil {
			w.fatalf("accept: %v", err)
		}
	}
}

func acceptAsProposed(name string) func(*world) {
	return func(w *world) {
		if err := w.decide(name, ide.Decision{Accept: true}); err != nil {
			w.fatalf("accept as proposed: %v", err)
		}
	}
}

// acceptFails: an accept of a proposal replaced, closed or answered is refused, with the text
// the editor displayed or as proposed.
func acceptFails(name string) func(*world) {
	return func(w *world) {
		for _, d := range []ide.Decision{{Accept: true, Text: ide.TextOf("late\n")}, {Accept: true}} {
			if err := w.decide(name, d); rpcCode(err) != jsonrpc.CodeUnknownDiff {
				w.fatalf("a late accept: %v, want error %d", err, jsonrpc.CodeUnknownDiff)
			}
		}
	}
}

func acceptTooBig(name string) func(*world) {
	return func(w *world) {
		err := w.decide(name, ide.Decision{Accept: true, Text: ide.TextOf(strings.Repeat("x", ide.MaxDiffText+1))})
		if rpcCode(err) != jsonrpc.CodeInvalidParams {
			w.fatalf("accept of %d bytes: %v, want error %d", ide.MaxDiffText+1, err, jsonrpc.CodeInvalidParams)
		}
	}
}

func reject(name string) func(*world) {
	return func(w *world) {
		if err := w.decide(name, ide.Decision{}); err != nil {
			w.fatalf("reject: %v", err)
		}
	}
}

func rejectFails(name string) func(*world) {
	return func(w *world) {
		if err := w.decide(name, ide.Decision{}); rpcCode(err) != jsonrpc.CodeUnknownDiff {
			w.fatalf("a late reject: %v, want error %d", err, jsonrpc.CodeUnknownDiff)
		}
	}
}

func pending(name string, want bool) func(*world) {
	return func(w *world) {
		if got := w.m.Pending(w.calls[name].seq); got != want {
			w.fatalf("Pending = %v, want %v", got, want)
		}
	}
}

// closeTab is close_tab through tools/call: always TAB_CLOSED.
func closeTab(client, tab string) func(*world) {
	return func(w *world) {
		args, _ := json.Marshal(map[string]string{"tab_name": tab})
		r := toResult(w.m.CallTool(context.Background(), w.ids[client], "close_tab", args))
		if r.err != nil || r.isError || !slices.Equal(r.texts, []string{"TAB_CLOSED"}) {
			w.fatalf("close_tab answered %+v, want TAB_CLOSED", r)
		}
	}
}

func closeAll(client string, n int) func(*world) {
	return func(w *world) {
		r := toResult(w.m.CallTool(context.Background(), w.ids[client], "closeAllDiffTabs", json.RawMessage(`{}`)))
		if want := fmt.Sprintf("CLOSED_%d_DIFF_TABS", n); r.err != nil || r.isError || !slices.Equal(r.texts, []string{want}) {
			w.fatalf("closeAllDiffTabs answered %+v, want %s", r, want)
		}
	}
}

// userCloseAll is the user's "close all diffs"; restoredTabs names the diffs whose text had to
// go into the buffer (all on w.path).
func userCloseAll(n int, restoredTabs ...string) func(*world) {
	return func(w *world) {
		closed, restored, err := w.m.CloseAllDiffs()
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

func userCloseAllFails(n int) func(*world) {
	return func(w *world) {
		closed, restored, err := w.m.CloseAllDiffs()
		if err == nil || closed != n || len(restored) != 0 {
			w.fatalf("closed %d, restored %v, err %v; want %d closed and an error", closed, restored, err, n)
		}
	}
}

// closes checks the editor's CloseDiff calls since the last check, exactly (in any order).
func closes(tabs ...string) func(*world) {
	return func(w *world) {
		w.ed.mu.Lock()
		got := w.ed.closed
		w.ed.closed = nil
		w.ed.mu.Unlock()
		got = slices.Clone(got)
		sort.Strings(got)
		want := slices.Clone(tabs)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			w.fatalf("editor closed %q, want exactly %q", got, want)
		}
	}
}

// diffs checks the open diffs, each "tab state owner".
func diffs(want ...string) func(*world) {
	return func(w *world) {
		var got []string
		for _, d := range w.m.Diffs() {
			if d.FilePath != w.path {
				w.fatalf("diff %+v is not on %s", d, w.path)
			}
			got = append(got, d.TabName+" "+d.State+" "+w.names[d.Owner])
		}
		sort.Strings(got)
		want = slices.Clone(want)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			w.fatalf("diffs %q, want %q", got, want)
		}
	}
}

func buffer(text string) func(*world) {
	return func(w *world) {
		w.ed.mu.Lock()
		defer w.ed.mu.Unlock()
		if len(w.ed.buffers) != 1 || w.ed.buffers[w.path] != text {
			w.fatalf("editor buffers %q, want %s = %q", w.ed.buffers, w.path, text)
		}
	}
}

func shutdown() func(*world) {
	return func(w *world) { w.m.Close() }
}

// showFails makes the editor's ShowDiff of tab fail with err.
func showFails(tab string, err error) func(*world) {
	return func(w *world) {
		w.ed.mu.Lock()
		w.ed.fail[tab] = err
		w.ed.mu.Unlock()
	}
}

// holdShow makes the editor's ShowDiff of tab wait (after it was recorded) for releaseShow.
func holdShow(tab string) func(*world) {
	return func(w *world) {
		w.ed.mu.Lock()
		w.ed.hold[tab] = make(chan error, 1)
		w.ed.mu.Unlock()
	}
}

func releaseShow(tab string, err error) func(*world) {
	return func(w *world) {
		w.ed.mu.Lock()
		w.ed.hold[tab] <- err
		w.ed.mu.Unlock()
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

// removeFile plays a Write's target not being there yet.
func removeFile() func(*world) {
	return func(w *world) {
		if err := os.Remove(w.path); err != nil {
			w.fatalf("%v", err)
		}
		w.disk = noFile
	}
}

// rpcCode returns the JSON-RPC error code of err, or 0.
func rpcCode(err error) int {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}
