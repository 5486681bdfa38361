package ide

import (
	"context"
	"strings"
	"testing"
)

// A proposal whose FILE_SAVED answer could exceed the CLI's 16 MiB message limit ("Messages over
// 16 MiB from the server close it", facts file) is refused before it is shown, so the CLI keeps
// its terminal prompt instead of losing its connection.
func TestOpenDiffRefusesTextOverCLILimit(t *testing.T) {
	m := New(nil, EditorInfo{Name: "T", Caps: Capabilities{ShowDiff: true}}, []string{"/w"}, Events{}, nil)
	_, err := m.OpenDiff(context.Background(), 1, OpenDiffArgs{OldFilePath: "/w/a", NewFilePath: "/w/a", TabName: "t",
		NewFileContents: TextOf(strings.Repeat("x", MaxDiffText+1))})
	if err == nil || !strings.Contains(err.Error(), "reviewed in the terminal") {
		t.Fatalf("err = %v, want a refusal", err)
	}
	if len(m.Diffs()) != 0 {
		t.Fatalf("refused diff was recorded: %v", m.Diffs())
	}
}
