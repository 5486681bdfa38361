package ide

import (
	"context"
	"strings"
	"testing"
	"time"
)

// showRecorder is an Editor that records shown diffs (the rest of Editor from nopEditor-like
// behaviour is not needed: OpenDiff only calls ShowDiff and CloseDiff).
type showRecorder struct {
	Editor
	shown chan ShowDiffParams
}

func (r *showRecorder) ShowDiff(_ context.Context, p ShowDiffParams) error { r.shown <- p; return nil }
func (r *showRecorder) CloseDiff(context.Context, string) error            { return nil }

// Issue 15 item 4: an answer for the proposal a reviewer displayed never settles a same-name
// proposal that replaced it.
func TestDiffAcceptedShownRefusesReplaced(t *testing.T) {
	ed := &showRecorder{shown: make(chan ShowDiffParams, 2)}
	m := New(ed, EditorInfo{Name: "T", Caps: Capabilities{ShowDiff: true}}, []string{"/w"}, Events{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ansA, ansB := make(chan []Content, 1), make(chan []Content, 1)
	go func() {
		r, _ := m.OpenDiff(ctx, 1, OpenDiffArgs{OldFilePath: "/w/a", NewFilePath: "/w/a", TabName: "T", NewFileContents: TextOf("A\n")})
		ansA <- r
	}()
	a := <-ed.shown
	go func() {
		r, _ := m.OpenDiff(ctx, 2, OpenDiffArgs{OldFilePath: "/w/a", NewFilePath: "/w/a", TabName: "T", NewFileContents: TextOf("B\n")})
		ansB <- r
	}()
	b := <-ed.shown
	if a.Seq == 0 || a.Seq == b.Seq {
		t.Fatalf("seqs %d, %d", a.Seq, b.Seq)
	}
	if r := <-ansA; r[0].Text != "DIFF_REJECTED" {
		t.Fatalf("A answered %v", r)
	}
	if m.DiffPendingShown("T", a.Seq) || !m.DiffPendingShown("T", b.Seq) {
		t.Fatalf("pending: replaced A %v, B %v; want false, true", m.DiffPendingShown("T", a.Seq), m.DiffPendingShown("T", b.Seq))
	}
	if err := m.DiffAcceptedShown("T", a.Seq, "A\n"); err == nil || !strings.Contains(err.Error(), "replaced") {
		t.Fatalf("accept of the replaced proposal: %v", err)
	}
	if err := m.DiffRejectedShown("T", a.Seq); err == nil {
		t.Fatal("reject of the replaced proposal passed")
	}
	if err := m.DiffAcceptedShown("T", b.Seq, "B edited\n"); err != nil {
		t.Fatal(err)
	}
	if m.DiffPendingShown("T", b.Seq) {
		t.Fatal("an accepted proposal still counts as pending")
	}
	if r := <-ansB; r[0].Text != "FILE_SAVED" || r[1].File.String() != "B edited\n" {
		t.Fatalf("B answered %+v", r)
	}
}
