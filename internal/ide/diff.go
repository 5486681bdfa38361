package ide

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
)

// The diff state machine. Rules (spec 000 "openDiff", "close_tab", "closeAllDiffTabs" and the
// facts file): a diff belongs to the client whose openDiff opened it; it is pending until the
// user accepts (FILE_SAVED + final text) or rejects (DIFF_REJECTED + tab_name); anything else that
// ends a pending diff (close_tab, closeAllDiffTabs, replacement, disconnect, shutdown) settles it
// as rejected, never as an accept. An accepted diff stays until its owner closes it, the user
// closes it (or all diffs), or its owner is gone and its file holds the accepted text
// (releaseWritten); another client can neither replace nor close it.

type diffState int

const (
	pending diffState = iota
	accepted
)

func (s diffState) String() string {
	if s == accepted {
		return "accepted"
	}
	return "pending"
}

type diff struct {
	tab   string
	owner ClientID
	path  string
	state diffState
	text  Text // the accepted text
	// proposal is the text Claude proposed, as sent to the editor: an accept without a text
	// (Decide) answers with it, so the editor need not send it back.
	proposal Text
	answer   chan []Content // buffered 1: the openDiff result, sent once
	seq      uint64         // which proposal this is (see ShowDiffParams.Seq)
	// held is the proposal's (and, once accepted, the accepted text's) share of the memory
	// budget, released when the diff is removed.
	held, heldText *membudget.Grant
}

func (d *diff) release() {
	d.held.Release()
	d.heldText.Release()
}

func (m *Model) budget() *membudget.Budget {
	if m.Budget != nil {
		return m.Budget
	}
	return membudget.Default
}

// MaxDiffText bounds a proposal shown in the editor, under the CLI's 16 MiB message limit with
// room for the JSON around an accepted text.
const MaxDiffText = 15 << 20

// ErrAcceptedElsewhere refuses an openDiff whose tab_name names a diff the user accepted for
// another client (spec: "the call fails at once with error -32000").
var ErrAcceptedElsewhere = errors.New("diff already accepted for another Claude session")

func rejected(tab string) []Content {
	return []Content{{Type: "text", Text: "DIFF_REJECTED"}, {Type: "text", Text: tab}}
}

// settleLocked removes every diff that match selects, answering pending ones as rejected, and
// returns the removed tab names so the caller can close their views outside the lock.
func (m *Model) settleLocked(match func(*diff) bool) []string {
	var closed []string
	for tab, d := range m.diffs {
		if !match(d) {
			continue
		}
		delete(m.diffs, tab)
		d.release()
		if d.state == pending {
			d.answer <- rejected(tab)
		}
		closed = append(closed, tab)
	}
	return closed
}

func (m *Model) closeViews(tabs []string) {
	for _, tab := range tabs {
		ctx, cancel := m.editorCtx(context.Background())
		if err := m.editor.CloseDiff(ctx, tab); err != nil {
			m.log.Warn("editor could not close diff", "tab", tab, "err", err)
		}
		cancel()
	}
}

// OpenDiffArgs are openDiff's arguments.
type OpenDiffArgs struct {
	OldFilePath     string `json:"old_file_path"`
	NewFilePath     string `json:"new_file_path"`
	NewFileContents Text   `json:"new_file_contents"`
	TabName         string `json:"tab_name"`
}

// OpenDiff shows a proposal and blocks until the user decides, the diff is closed, or ctx ends
// (the client went away). It never writes the file.
func (m *Model) OpenDiff(ctx context.Context, id ClientID, a OpenDiffArgs) ([]Content, error) {
	if a.NewFileContents.EncodedLen() > MaxDiffText {
		// The CLI closes its connection on a message over 16 MiB, and FILE_SAVED carries the
		// whole text back: such a diff is refused, and the CLI falls back to its terminal prompt.
		return nil, fmt.Errorf("the proposal is %d MiB; diffs over %d MiB are reviewed in the terminal", a.NewFileContents.EncodedLen()>>20, MaxDiffText>>20)
	}
	d := &diff{tab: a.TabName, owner: id, path: a.OldFilePath, answer: make(chan []Content, 1), seq: diffSeq.Add(1), proposal: a.NewFileContents}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, jsonrpc.Errorf(jsonrpc.CodeServerError, "the bridge is shutting down")
	}
	agent := "claude"
	if c := m.clients[id]; c != nil {
		agent = c.agent()
	}
	old := m.diffs[a.TabName]
	if old != nil && old.state == accepted && old.owner != id {
		m.mu.Unlock()
		return nil, jsonrpc.Errorf(jsonrpc.CodeServerError, "%v: %q stays open until that session closes it or the user closes all diffs", ErrAcceptedElsewhere, a.TabName)
	}
	// The proposal is held until it is settled: its share of the one memory budget (issue 25
	// item 5). Over it, this openDiff is refused (the CLI then asks in the terminal); nothing
	// pending or accepted is touched. The diff it would replace is counted as gone.
	if old != nil && old.state == pending {
		old.release()
	}
	held, err := m.budget().Take(int64(a.NewFileContents.EncodedLen()), "the proposal for "+filepath.Base(a.OldFilePath))
	if err != nil {
		if old != nil && old.state == pending {
			old.held = m.budget().Force(int64(old.proposal.EncodedLen())) // it stays
		}
		m.mu.Unlock()
		return nil, fmt.Errorf("%w; accept or reject the diffs already open first", err)
	}
	d.held = held
	if old != nil {
		// Replace: the old pending call is answered as rejected; the new showDiff replaces the view.
		m.settleLocked(func(x *diff) bool { return x == old })
	}
	m.diffs[a.TabName] = d
	m.mu.Unlock()

	_, statErr := os.Stat(a.OldFilePath)
	sctx, cancel := context.WithTimeout(ctx, m.ShowDiffTimeout)
	err = m.editor.ShowDiff(sctx, ShowDiffParams{
		TabName: a.TabName, FilePath: a.OldFilePath, NewFilePath: a.NewFilePath,
		NewContents: a.NewFileContents, FileExists: statErr == nil, Seq: d.seq, Owner: id, Agent: agent,
	})
	cut := sctx.Err() != nil // the client left, or the editor did not answer in time
	cancel()
	if err != nil {
		m.mu.Lock()
		ours := m.diffs[a.TabName] == d
		if ours {
			delete(m.diffs, a.TabName)
			d.release()
		}
		m.mu.Unlock()
		if ours && cut && !errors.Is(err, ErrEditorGone) {
			// The call was cut while the editor may already have put it on screen: close the
			// view, or it stays there with nothing to settle it (closeDiff of a tab the editor
			// does not show answers {}).
			m.closeViews([]string{a.TabName})
		}
		// Settled while the editor was showing it (replaced, closed, shutdown), or the editor went
		// away with it on screen: the user did not accept it, so the answer is a reject.
		select {
		case res := <-d.answer:
			return res, nil
		default:
		}
		if ours && errors.Is(err, ErrEditorGone) {
			return rejected(a.TabName), nil
		}
		return nil, fmt.Errorf("%s could not show the diff: %w", m.info.Name, err)
	}

	select {
	case res := <-d.answer:
		return res, nil
	case <-ctx.Done():
		m.mu.Lock()
		closed := m.settleLocked(func(x *diff) bool { return x == d && x.state == pending })
		m.mu.Unlock()
		m.closeViews(closed)
		select {
		case res := <-d.answer: // decided just before the client left
			return res, nil
		default:
			return nil, ctx.Err()
		}
	}
}

// CloseTab is close_tab: it closes only the calling client's diff with exactly that name. Another
// client's diff stays: accepted (the spec) and pending too, which close_tab would otherwise
// settle as rejected behind the back of the session waiting on it (issue 25 item 7; the same
// rule as closeAllDiffTabs). The answer is always TAB_CLOSED.
func (m *Model) CloseTab(id ClientID, tab string) []Content {
	m.mu.Lock()
	closed := m.settleLocked(func(d *diff) bool {
		return d.tab == tab && d.owner == id
	})
	m.mu.Unlock()
	m.closeViews(closed)
	return []Content{{Type: "text", Text: "TAB_CLOSED"}}
}

// CloseAllDiffTabs is closeAllDiffTabs: the calling client's diffs, pending or accepted. Other
// clients' diffs stay and are not counted. The spec keeps another client's accepted diff; a
// pending one stays too, because the CLI sends this at the start of every prompt, and one
// session's prompt must not reject the diff another session is waiting on (a diff belongs to the
// client whose openDiff opened it).
func (m *Model) CloseAllDiffTabs(id ClientID) []Content {
	m.mu.Lock()
	closed := m.settleLocked(func(d *diff) bool { return d.owner == id })
	m.mu.Unlock()
	m.closeViews(closed)
	m.releaseWritten()
	return []Content{{Type: "text", Text: fmt.Sprintf("CLOSED_%d_DIFF_TABS", len(closed))}}
}

// CloseAllDiffs is the user's "close all diffs": pending diffs are rejected; an accepted diff is
// closed once its file holds the accepted text, or after that text was put into the file's
// buffer as unsaved changes. A diff whose text could not be put anywhere stays open.
func (m *Model) CloseAllDiffs() (closed int, restored []string, err error) {
	m.mu.Lock()
	var acc []*diff
	for _, d := range m.diffs {
		if d.state == accepted {
			acc = append(acc, d)
		}
	}
	tabs := m.settleLocked(func(d *diff) bool { return d.state == pending })
	m.mu.Unlock()
	m.closeViews(tabs)
	n, restored, err := m.closeAccepted(acc)
	return len(tabs) + n, restored, err
}

func (m *Model) closeAccepted(acc []*diff) (closed int, restored []string, err error) {
	for _, d := range acc {
		text := d.text.String()
		if !fileHolds(d.path, text) {
			if !m.info.Caps.SetBufferText {
				err = errors.Join(err, fmt.Errorf("%s cannot hold unsaved text; %q stays open", m.info.Name, d.tab))
				continue
			}
			ctx, cancel := m.editorCtx(context.Background())
			serr := m.editor.SetBufferText(ctx, d.path, text)
			cancel()
			if serr != nil {
				err = errors.Join(err, fmt.Errorf("keeping %q open: putting its text into %s: %w", d.tab, d.path, serr))
				continue
			}
			restored = append(restored, d.path)
		}
		m.mu.Lock()
		gone := m.settleLocked(func(x *diff) bool { return x == d })
		m.mu.Unlock()
		m.closeViews(gone)
		closed += len(gone)
	}
	return closed, restored, err
}

// releaseWritten closes the accepted diffs whose client has gone and whose file holds the
// accepted text. Such a diff's close_tab never comes: a CLI restarted, or its connection dropped,
// between the accept and its close_tab (spec 000: "Claude Code sends close_tab only over the
// connection that opened the diff"), and each held its texts (up to 15 MiB) for the bridge's
// life (issue 35 item 7). Once the CLI wrote the file, letting it go loses nothing; one whose text
// never reached the file stays, for the user's "close all diffs". It runs when a client leaves
// and at each prompt (closeAllDiffTabs), which also catches a CLI that wrote the file just after
// the bridge saw its connection end.
func (m *Model) releaseWritten() {
	m.mu.Lock()
	var orphans []*diff
	for _, d := range m.diffs {
		if _, live := m.clients[d.owner]; d.state == accepted && !live {
			orphans = append(orphans, d)
		}
	}
	m.mu.Unlock()
	for _, d := range orphans {
		if !fileHolds(d.path, d.text.String()) {
			continue
		}
		m.mu.Lock()
		gone := m.settleLocked(func(x *diff) bool { return x == d })
		m.mu.Unlock()
		m.closeViews(gone)
	}
}

// DiffText is the text of client id's pending diff tab as the user sees it now: what the editor
// says its view holds (the user's edits kept) when it has the diffText capability, else the
// proposal as sent. ok is false when id has no pending diff of that name. The other agents'
// closeDiff answers it (internal/companion): the user answered in the agent's terminal.
func (m *Model) DiffText(ctx context.Context, id ClientID, tab string) (text string, ok bool) {
	m.mu.Lock()
	d := m.diffs[tab]
	if d == nil || d.owner != id || d.state != pending {
		m.mu.Unlock()
		return "", false
	}
	proposal := d.proposal
	m.mu.Unlock()
	if dt, can := m.editor.(DiffTexter); can && m.info.Caps.DiffText {
		ectx, cancel := m.editorCtx(ctx)
		t, shown, err := dt.DiffText(ectx, tab)
		cancel()
		if err == nil && shown {
			return t, true
		}
		if err != nil {
			m.log.Info("editor could not say its diff's text", "tab", tab, "err", err)
		}
	}
	return proposal.String(), true
}

// DiffInfo describes an open diff for status displays.
type DiffInfo struct {
	TabName  string   `json:"tabName"`
	FilePath string   `json:"filePath"`
	State    string   `json:"state"`
	Owner    ClientID `json:"owner"`
}

// Diffs lists the open diffs.
func (m *Model) Diffs() []DiffInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]DiffInfo, 0, len(m.diffs))
	for _, d := range m.diffs {
		out = append(out, DiffInfo{TabName: d.tab, FilePath: d.path, State: d.state.String(), Owner: d.owner})
	}
	return out
}
