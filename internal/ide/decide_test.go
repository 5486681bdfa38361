package ide

import (
	"context"
	"testing"
	"time"
)

// showRecorder is an Editor that records shown diffs (OpenDiff only calls ShowDiff and
// CloseDiff).
type showRecorder struct {
	Editor
	shown chan ShowDiffParams
}

func (r *showRecorder) ShowDiff(_ context.Context, p ShowDiffParams) error { r.shown <- p; return nil }
func (r *showRecorder) CloseDiff(context.Context, string) error            { return nil }

// An accept without a text answers Claude with the proposal's text exactly as it came (the
// Text's JSON, not a re-encoding), only for the number of the pending proposal.
func TestDecideAsProposed(t *testing.T) {
	ed := &showRecorder{shown: make(chan ShowDiffParams, 1)}
	m := New(ed, EditorInfo{Name: "T", Caps: Capabilities{ShowDiff: true}}, []string{"/w"}, Events{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var proposal Text
	// A literal as Claude may send it, with an escape encoding/json would write otherwise.
	if err := proposal.UnmarshalJSON([]byte(`"caf\u00e9\n"`)); err != nil {
		t.Fatal(err)
	}
	ans := make(chan []Content, 1)
	go func() {
		r, _ := m.OpenDiff(ctx, 1, OpenDiffArgs{OldFilePath: "/w/a", NewFilePath: "/w/a", TabName: "T", NewFileContents: proposal})
		ans <- r
	}()
	p := <-ed.shown
	asProposed := Decision{Accept: true}
	if err := m.Decide(0, asProposed); err == nil {
		t.Fatal("proposal 0 accepted")
	}
	if err := m.Decide(p.Seq+1, asProposed); err == nil {
		t.Fatal("another proposal's number accepted")
	}
	if err := m.Decide(p.Seq, asProposed); err != nil {
		t.Fatal(err)
	}
	r := <-ans
	if len(r) != 2 || r[0].Text != "FILE_SAVED" || string(r[1].File.JSON()) != `"caf\u00e9\n"` {
		t.Fatalf("answered %+v", r)
	}
	if err := m.Decide(p.Seq, asProposed); err == nil {
		t.Fatal("accepted twice")
	}
}
