// Package fakeapi is a fake Anthropic Messages API for end-to-end tests of
// the real Claude Code CLI. It plays a script of assistant turns and records
// every request the CLI makes, so tests can assert on what the model was sent.
package fakeapi

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
)

// Turn is one scripted assistant message: optional text followed by
// tool_use blocks. A turn with tool uses ends with stop_reason "tool_use",
// otherwise "end_turn".
type Turn struct {
	Text  string
	Tools []ToolUse
}

// ToolUse is a tool_use content block. ID is generated when empty.
type ToolUse struct {
	ID    string
	Name  string
	Input any
}

// Text returns a turn that only says s.
func Text(s string) Turn { return Turn{Text: s} }

// Tool returns a turn that calls one tool with input (marshalled to JSON).
func Tool(name string, input any) Turn {
	return Turn{Tools: []ToolUse{{Name: name, Input: input}}}
}

// Edit returns the turns of a model that reads file, edits old to new in it, then says after.
func Edit(file, old, new, after string) []Turn {
	return []Turn{
		Tool("Read", map[string]any{"file_path": file}),
		Tool("Edit", map[string]any{"file_path": file, "old_string": old, "new_string": new}),
		Text(after),
	}
}

var toolSeq atomic.Int64

// block is a content block as it appears in a Messages response.
type block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

// blocks renders the turn as content blocks, giving tool uses their IDs.
func (t Turn) blocks() ([]block, error) {
	var bs []block
	if t.Text != "" || len(t.Tools) == 0 {
		bs = append(bs, block{Type: "text", Text: t.Text})
	}
	for _, tu := range t.Tools {
		in, err := json.Marshal(tu.Input)
		if err != nil {
			return nil, fmt.Errorf("tool %s input: %w", tu.Name, err)
		}
		if tu.Input == nil {
			in = []byte("{}")
		}
		id := tu.ID
		if id == "" {
			id = fmt.Sprintf("toolu_fake%06d", toolSeq.Add(1))
		}
		bs = append(bs, block{Type: "tool_use", ID: id, Name: tu.Name, Input: in})
	}
	return bs, nil
}

func (t Turn) stopReason() string {
	if len(t.Tools) > 0 {
		return "tool_use"
	}
	return "end_turn"
}
