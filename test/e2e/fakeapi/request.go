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

// LastUserText is like Text, restricted to the messages after the last
// assistant message: what the CLI added to the conversation for this
// request (it may put attachments such as IDE context in messages of their
// own after the prompt).
func (r Request) LastUserText() string {
	var b strings.Builder
	for _, m := range r.sinceAssistant() {
		mm, _ := m.(map[string]any)
		collect(&b, mm["content"])
	}
	return b.String()
}

// ToolResults returns every tool_result block after the last assistant
// message.
func (r Request) ToolResults() []ToolResult {
	var out []ToolResult
	for _, m := range r.sinceAssistant() {
		mm, _ := m.(map[string]any)
		blocks, _ := mm["content"].([]any)
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
	}
	return out
}

// sinceAssistant is the request's messages after the last assistant message.
func (r Request) sinceAssistant() []any {
	msgs, _ := r.Body["messages"].([]any)
	i := len(msgs)
	for i > 0 {
		if m, _ := msgs[i-1].(map[string]any); m["role"] == "assistant" {
			break
		}
		i--
	}
	return msgs[i:]
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
