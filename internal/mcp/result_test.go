package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// openDiff's FILE_SAVED answer carries the accepted file as it came from the editor: the text's
// own bytes are a piece of the result (not checked or copied again), and the result reads as
// the spec's [{text:"FILE_SAVED"}, {text:<final file contents>}] (facts "Tool calls").
func TestToolResultPassesTheFileThrough(t *testing.T) {
	text := ide.TextOf(strings.Repeat("line \"quoted\" é\n", 8<<10))
	r := &ide.ToolResult{Content: []ide.Content{{Type: "text", Text: "FILE_SAVED"}, {Type: "text", File: text}}}
	p, ok := toolResult(r).(jsonrpc.Pieces)
	if !ok {
		t.Fatalf("toolResult = %T, want jsonrpc.Pieces", toolResult(r))
	}
	shared := false
	for _, b := range p {
		shared = shared || len(b) > 0 && &b[0] == &text.JSON()[0]
	}
	if !shared {
		t.Error("the file's text was copied into the result")
	}
	var got struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	if err := json.Unmarshal(bytes.Join(p, nil), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Content) != 2 || got.Content[0].Text != "FILE_SAVED" || got.Content[1].Text != text.String() || got.Content[1].Type != "text" || got.IsError {
		t.Errorf("result %.200s", bytes.Join(p, nil))
	}
	// Without a file's text the result is the ToolResult itself, for encoding/json.
	plain := &ide.ToolResult{Content: []ide.Content{{Type: "text", Text: "TAB_CLOSED"}}}
	if toolResult(plain) != any(plain) {
		t.Error("a result without a file text was rewritten")
	}
}
