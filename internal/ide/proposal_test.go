package ide

import (
	"context"
	"testing"
	"time"
)

// DiffAcceptedProposal answers Claude with the proposal's text exactly as it came (the Text's
// JSON, not a re-encoding), only for the number of the pending proposal.
func TestDiffAcceptedProposal(t *testing.T) {
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
	if err := m.DiffAcceptedProposal("T", 0); err == nil {
		t.Fatal("proposal 0 accepted")
	}
	if err := m.DiffAcceptedProposal("T", p.Seq+1); err == nil {
		t.Fatal("another proposal's number accepted")
	}
	if err := m.DiffAcceptedProposal("T", p.Seq); err != nil {
		t.Fatal(err)
	}
	r := <-ans
	if len(r) != 2 || r[0].Text != "FILE_SAVED" || string(r[1].File.JSON()) != `"caf\u00e9\n"` {
		t.Fatalf("answered %+v", r)
	}
	if err := m.DiffAcceptedProposal("T", p.Seq); err == nil {
		t.Fatal("accepted twice")
	}
}
