package ide

import (
	"context"
	"errors"
	"fmt"
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

// failingShow is an Editor whose ShowDiff fails with err.
type failingShow struct {
	Editor
	err error
}

func (f failingShow) ShowDiff(context.Context, ShowDiffParams) error { return f.err }

// The editor going away with a proposal on its way to the screen ends it like shutdown does
// ("anything else that ends a pending diff ... settles it as rejected"); an editor that refuses
// to show one is an error Claude sees, and nothing is left pending either way.
func TestOpenDiffShowFails(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{"editor gone", "DIFF_REJECTED", fmt.Errorf("wrapped: %w", ErrEditorGone)},
		{"editor refused", "could not show the diff: no window", errors.New("no window")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(failingShow{err: tc.err}, EditorInfo{Name: "T", Caps: Capabilities{ShowDiff: true}}, []string{"/w"}, Events{}, nil)
			res, err := m.OpenDiff(context.Background(), 1, OpenDiffArgs{OldFilePath: "/w/a", NewFilePath: "/w/a", TabName: "t", NewFileContents: TextOf("x\n")})
			got := ""
			if err != nil {
				got = err.Error()
			} else if len(res) == 2 && res[1].Text == "t" {
				got = res[0].Text
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("OpenDiff = %+v, %v; want %q", res, err, tc.want)
			}
			if len(m.Diffs()) != 0 {
				t.Errorf("diff left behind: %v", m.Diffs())
			}
		})
	}
}
