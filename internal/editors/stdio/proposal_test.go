package stdio_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// nextProposal reads the next showDiff and returns its tab name and proposal number.
func nextProposal(t *testing.T, s *sidecar) (string, uint64) {
	t.Helper()
	var p struct {
		TabName  string  `json:"tabName"`
		Proposal *uint64 `json:"proposal"`
	}
	if err := json.Unmarshal(s.next(t, "showDiff").Params, &p); err != nil || p.Proposal == nil || *p.Proposal == 0 {
		t.Fatalf("showDiff without a proposal number: %+v %v", p, err)
	}
	return p.TabName, *p.Proposal
}

// docs/editor-protocol.md, diffAccepted: `{"tabName", "proposal": N}` instead of contents means
// the user accepted proposal N (showDiff's "proposal") unedited; Claude gets FILE_SAVED with the
// text it proposed. A number that is not the pending proposal of that name is -32001 and settles
// nothing.
func TestDiffAcceptedProposal(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		c := claude(t, s.initialize(t, nil))
		path := s.writeFile(t, "a.txt", "old\n")
		const tab = "✻ [Claude Code] a.txt (aa7495) ⧉"
		text := "new \"quoted\" é \u2028 text\n"
		res := openDiff(t, c, path, text, tab)
		_, n := nextProposal(t, s)
		for _, bad := range []uint64{n + 1, 0} {
			if err := s.call(t, "diffAccepted", map[string]any{"tabName": tab, "proposal": bad}, nil); rpcCode(err) != jsonrpc.CodeUnknownDiff {
				t.Errorf("diffAccepted of proposal %d (shown: %d): %v, want -32001", bad, n, err)
			}
		}
		if err := s.call(t, "diffAccepted", map[string]any{"tabName": tab, "proposal": "x"}, nil); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("diffAccepted with a string proposal: %v, want -32602", err)
		}
		if err := s.call(t, "diffAccepted", map[string]any{"tabName": tab, "proposal": n}, nil); err != nil {
			t.Fatal(err)
		}
		if r := await(t, res); r.IsError || !slices.Equal(r.Texts(), []string{"FILE_SAVED", text}) {
			t.Errorf("openDiff = %+v", r)
		}
		// Accepted once: the same number again is -32001.
		if err := s.call(t, "diffAccepted", map[string]any{"tabName": tab, "proposal": n}, nil); rpcCode(err) != jsonrpc.CodeUnknownDiff {
			t.Errorf("second diffAccepted: %v, want -32001", err)
		}
	})
}

// A same-name openDiff replaces the pending one (spec); the editor's accept of the number it
// showed before must not answer the new proposal with its text, which the user never saw.
func TestDiffAcceptedProposalReplaced(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line")
	c := claude(t, s.initialize(t, nil))
	path := s.writeFile(t, "a.txt", "old\n")
	const tab = "✻ [Claude Code] a.txt (aa7495) ⧉"
	resA := openDiff(t, c, path, "A\n", tab)
	_, a := nextProposal(t, s)
	resB := openDiff(t, c, path, "B\n", tab)
	_, b := nextProposal(t, s)
	if a == b {
		t.Fatalf("both proposals numbered %d", a)
	}
	if r := await(t, resA); !slices.Equal(r.Texts(), []string{"DIFF_REJECTED", tab}) {
		t.Errorf("replaced openDiff = %+v", r)
	}
	if err := s.call(t, "diffAccepted", map[string]any{"tabName": tab, "proposal": a}, nil); rpcCode(err) != jsonrpc.CodeUnknownDiff {
		t.Errorf("accept of the replaced proposal: %v, want -32001", err)
	}
	// Contents, when sent too, are the text (an editor may always send them).
	if err := s.call(t, "diffAccepted", map[string]any{"tabName": tab, "proposal": b, "contents": "B edited\n"}, nil); err != nil {
		t.Fatal(err)
	}
	if r := await(t, resB); !slices.Equal(r.Texts(), []string{"FILE_SAVED", "B edited\n"}) {
		t.Errorf("openDiff = %+v", r)
	}
}

// Issue 25 item 6: every decision names its proposal. An edited accept, or a reject, of a
// proposal that is no longer the pending one of its tab (a same-name openDiff replaced it, or
// close_tab closed it and a new one took the name) is -32001 and never lands on the new
// proposal; a decision without a number is -32602 (the bridge cannot tell which proposal the
// user saw). The new proposal stays pending and is answered only by its own decision.
func TestDecisionOnStaleProposal(t *testing.T) {
	t.Parallel()
	const tab = "✻ [Claude Code] a.txt (aa7495) ⧉"
	for _, how := range []string{"replaced", "closed and reopened"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			s := startSidecar(t, "line")
			c := claude(t, s.initialize(t, nil))
			path := s.writeFile(t, "a.txt", "old\n")
			resA := openDiff(t, c, path, "A\n", tab)
			_, a := nextProposal(t, s)
			if how == "closed and reopened" {
				tool(t, c, "close_tab", map[string]any{"tab_name": tab})
				s.next(t, "closeDiff")
			}
			resB := openDiff(t, c, path, "B\n", tab)
			_, b := nextProposal(t, s)
			if r := await(t, resA); !slices.Equal(r.Texts(), []string{"DIFF_REJECTED", tab}) {
				t.Errorf("first openDiff = %+v", r)
			}
			// The user's edit of A, saved just as B arrived.
			for _, d := range []struct {
				method string
				params map[string]any
				code   int
			}{
				{"diffAccepted", map[string]any{"tabName": tab, "proposal": a, "contents": "A edited\n"}, jsonrpc.CodeUnknownDiff},
				{"diffRejected", map[string]any{"tabName": tab, "proposal": a}, jsonrpc.CodeUnknownDiff},
				{"diffAccepted", map[string]any{"tabName": tab, "contents": "A edited\n"}, jsonrpc.CodeInvalidParams},
				{"diffRejected", map[string]any{"tabName": tab}, jsonrpc.CodeInvalidParams},
			} {
				if err := s.call(t, d.method, d.params, nil); rpcCode(err) != d.code {
					t.Errorf("%s %v: %v, want %d", d.method, d.params, err, d.code)
				}
			}
			if st := s.status(t); len(st.Diffs) != 1 || st.Diffs[0].State != "pending" {
				t.Fatalf("after the stale decisions: %+v, want B pending", st.Diffs)
			}
			select {
			case r := <-resB:
				t.Fatalf("B answered by a decision on A: %+v", r)
			default:
			}
			if err := s.call(t, "diffAccepted", map[string]any{"tabName": tab, "proposal": b}, nil); err != nil {
				t.Fatal(err)
			}
			if r := await(t, resB); !slices.Equal(r.Texts(), []string{"FILE_SAVED", "B\n"}) {
				t.Errorf("second openDiff = %+v", r)
			}
		})
	}
}
