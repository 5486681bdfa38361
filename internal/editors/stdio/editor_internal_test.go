package stdio

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
)

// showDiff carries Claude's proposal to the editor as it came: the text's own bytes are a piece
// of the params (not checked or copied again), and the params read as docs/editor-protocol.md's
// showDiff (with "proposal", the proposal's number).
func TestShowDiffParamsPassTheTextThrough(t *testing.T) {
	t.Parallel()
	text := ide.TextOf(strings.Repeat("x := \"é\"\t\n", 16<<10))
	p := showDiffParams(ide.ShowDiffParams{TabName: "T", FilePath: "/w/a", NewFilePath: "/w/b", NewContents: text, FileExists: true, Seq: 9})
	shared := false
	for _, b := range p {
		shared = shared || len(b) > 0 && &b[0] == &text.JSON()[0]
	}
	if !shared {
		t.Error("the proposal was copied into the params")
	}
	var got map[string]any
	if err := json.Unmarshal(bytes.Join(p, nil), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"tabName": "T", "filePath": "/w/a", "newFilePath": "/w/b", "newContents": text.String(), "fileExists": true, "proposal": 9.0}
	if len(got) != len(want) {
		t.Errorf("params %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %.40v, want %.40v", k, got[k], v)
		}
	}
}
