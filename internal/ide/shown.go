package ide

import (
	"sync/atomic"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// diffSeq numbers proposals (ShowDiffParams.Seq); 0 is never used.
var diffSeq atomic.Uint64

// DiffAcceptedShown is DiffAccepted for the proposal numbered seq only. If a same-name openDiff
// replaced it (the spec's rule: a same-name openDiff replaces a pending diff), the accept is
// refused with CodeUnknownDiff and nothing is answered: a reviewer never answers the new proposal
// with the text of the one it displayed (issue 15 item 4). The check and the accept happen under
// one lock.
func (m *Model) DiffAcceptedShown(tab string, seq uint64, text string) error {
	return m.DiffAcceptedShownText(tab, seq, TextOf(text))
}

// DiffRejectedShown is DiffRejected for the proposal numbered seq only: a reject (or the closing
// of the view) of a proposal that was replaced, closed or answered is refused with
// CodeUnknownDiff and settles nothing, so it never rejects the proposal that replaced it.
// seq 0 names no proposal and is refused the same way.
func (m *Model) DiffRejectedShown(tab string, seq uint64) error {
	if seq == 0 {
		return errReplaced(tab)
	}
	return m.reject(tab, seq)
}

func errReplaced(tab string) error {
	return jsonrpc.Errorf(jsonrpc.CodeUnknownDiff, "the proposal shown for %q was replaced or closed", tab)
}

// DiffAcceptedShownText is DiffAcceptedShown with the text as it came in JSON (see Text).
// seq 0 names no proposal and is refused with CodeUnknownDiff.
func (m *Model) DiffAcceptedShownText(tab string, seq uint64, text Text) error {
	if seq == 0 {
		return errReplaced(tab)
	}
	return m.accept(tab, seq, text, false)
}

// DiffPendingShown reports whether the proposal numbered seq is still the pending diff named tab:
// false once it was answered, closed or replaced. A reviewer that queues proposals checks it
// before displaying one: a same-name openDiff settles the old call before the editor is sent the
// new proposal, so for a moment the editor still holds the old one, already answered.
func (m *Model) DiffPendingShown(tab string, seq uint64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.diffs[tab]
	return d != nil && d.seq == seq && d.state == pending
}
