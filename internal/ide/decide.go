package ide

import (
	"sync/atomic"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// diffSeq numbers proposals (ShowDiffParams.Seq); 0 is never used.
var diffSeq atomic.Uint64

// Decision is the user's answer to one proposal. The zero Decision is a reject.
type Decision struct {
	Accept bool
	// Text is the accepted text, the user's edits included. The zero Text accepts the proposal
	// as Claude sent it: the editor need not send a 10 MiB text back, and Claude gets it
	// byte for byte.
	Text Text
}

// Decide records the user's decision on the proposal numbered seq (ShowDiffParams.Seq), the
// one every editor's decision names. A proposal that a same-name openDiff replaced, that was
// closed or already answered, is refused with CodeUnknownDiff and nothing is settled: a
// decision never lands on a proposal the user did not see (issue 15 item 4, issue 25 item 6).
// An accept answers Claude FILE_SAVED with the text; the diff stays open, owned by its client,
// until closed. A reject answers DIFF_REJECTED and closes the view; a reject of an accepted
// proposal (its view closed) closes it the way "close all diffs" does, so its text is not lost.
func (m *Model) Decide(seq uint64, dec Decision) error {
	m.mu.Lock()
	d := m.proposalLocked(seq)
	if d == nil {
		m.mu.Unlock()
		return jsonrpc.Errorf(jsonrpc.CodeUnknownDiff, "proposal %d was replaced, closed or answered", seq)
	}
	if !dec.Accept {
		if d.state == accepted {
			m.mu.Unlock()
			_, _, err := m.closeAccepted([]*diff{d})
			return err
		}
		closed := m.settleLocked(func(x *diff) bool { return x == d })
		m.mu.Unlock()
		m.closeViews(closed)
		if m.events.DiffRejected != nil {
			m.events.DiffRejected(d.owner, d.tab)
		}
		return nil
	}
	defer m.mu.Unlock()
	if d.state != pending {
		return jsonrpc.Errorf(jsonrpc.CodeUnknownDiff, "proposal %d for %q was already accepted", seq, d.tab)
	}
	text := dec.Text
	if text.IsZero() {
		text = d.proposal
	} else if text.EncodedLen() > MaxDiffText {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "the accepted text is over %d MiB, more than Claude accepts in one message; the diff stays open", MaxDiffText>>20)
	} else {
		// Already in memory and the user's: counted, never refused (nothing accepted is lost).
		d.heldText = m.budget().Force(int64(text.EncodedLen()))
	}
	d.state, d.text = accepted, text
	d.answer <- []Content{{Type: "text", Text: "FILE_SAVED"}, {Type: "text", File: text}}
	return nil
}

// Pending reports whether the proposal numbered seq still waits for the user: false once it was
// answered, closed or replaced. A reviewer that queues proposals checks it before displaying
// one: a same-name openDiff settles the old call before the editor is sent the new proposal, so
// for a moment the editor still holds the old one, already answered.
func (m *Model) Pending(seq uint64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.proposalLocked(seq)
	return d != nil && d.state == pending
}

// proposalLocked is the open diff showing proposal seq, or nil. There are a handful of open
// diffs, so a walk is as quick as a second map and cannot disagree with m.diffs.
func (m *Model) proposalLocked(seq uint64) *diff {
	for _, d := range m.diffs {
		if d.seq == seq && seq != 0 {
			return d
		}
	}
	return nil
}
