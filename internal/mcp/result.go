package mcp

import (
	"encoding/json"
	"slices"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// toolResult is tools/call's result for r. A file's text in it (ide.Content.File: openDiff's
// FILE_SAVED answer carries the accepted file, up to 15 MiB) is written as it came from the
// editor, a piece of the message of its own (jsonrpc.Pieces): encoding/json would check it once
// more and copy it, a full pass over the text for nothing.
func toolResult(r *ide.ToolResult) any {
	if r == nil || !slices.ContainsFunc(r.Content, func(c ide.Content) bool { return !c.File.IsZero() }) {
		return r
	}
	p := jsonrpc.Pieces{[]byte(`{"content":[`)}
	for i, c := range r.Content {
		if i > 0 {
			p = append(p, []byte(","))
		}
		if c.File.IsZero() {
			b, _ := json.Marshal(c) // strings only: it always encodes
			p = append(p, b)
			continue
		}
		p = append(p, []byte(`{"type":"text","text":`), c.File.JSON(), []byte("}"))
	}
	if r.IsError {
		p = append(p, []byte(`],"isError":true}`))
	} else {
		p = append(p, []byte("]}"))
	}
	return p
}
