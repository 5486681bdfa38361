package fakeapi

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Request is one recorded HTTP request.
type Request struct {
	Seq    int // 1-based arrival order
	Method string
	Path   string // without the query
	Query  string
	Header http.Header
	Raw    []byte
	// Body is the parsed JSON body; nil when the body was not a JSON object.
	Body map[string]any
	// Main reports whether the request was part of the main conversation and
	// so consumed a scripted turn.
	Main bool
	// Turn is the index of the scripted turn it consumed (when Main), -1 if
	// the script was exhausted.
	Turn int
}

// Text returns every string in the request's system prompt and messages,
// joined by newlines: text blocks, tool_result contents, tool inputs. Tests
// search it for the phrases the CLI sends the model.
func (r Request) Text() string {
	var b strings.Builder
	collect(&b, r.Body["system"])
	collect(&b, r.Body["messages"])
	return b.String()
}

// LastUserText is like Text, restricted to the last message with role "user":
// what the CLI added to the conversation for this request.
func (r Request) LastUserText() string {
	msgs, _ := r.Body["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] == "user" {
			var b strings.Builder
			collect(&b, m["content"])
			return b.String()
		}
	}
	return ""
}

// ToolResults returns the content of every tool_result block in the last
// user message, keyed by tool_use_id, with is_error noted.
func (r Request) ToolResults() []ToolResult {
	msgs, _ := r.Body["messages"].([]any)
	if len(msgs) == 0 {
		return nil
	}
	m, _ := msgs[len(msgs)-1].(map[string]any)
	blocks, _ := m["content"].([]any)
	var out []ToolResult
	for _, b := range blocks {
		bm, _ := b.(map[string]any)
		if bm["type"] != "tool_result" {
			continue
		}
		var sb strings.Builder
		collect(&sb, bm["content"])
		id, _ := bm["tool_use_id"].(string)
		isErr, _ := bm["is_error"].(bool)
		out = append(out, ToolResult{ToolUseID: id, Content: sb.String(), IsError: isErr})
	}
	return out
}

// ToolResult is a tool_result block the CLI sent back to the model.
type ToolResult struct {
	ToolUseID string
	Content   string
	IsError   bool
}

// collect appends every string under v to b, one per line.
func collect(b *strings.Builder, v any) {
	switch v := v.(type) {
	case string:
		b.WriteString(v)
		b.WriteByte('\n')
	case []any:
		for _, e := range v {
			collect(b, e)
		}
	case map[string]any:
		collect(b, v["text"])
		collect(b, v["content"])
		if in, ok := v["input"]; ok {
			j, _ := json.Marshal(in)
			b.Write(j)
			b.WriteByte('\n')
		}
	}
}

func parseBody(raw []byte) map[string]any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}
