package fakeapi

// IsMain reports whether a Messages request body belongs to the main
// conversation (and so consumes a scripted turn): a streamed request that
// offers the model tools and room to answer.
//
// CLI 2.1.328, offline with this fake, sent nothing else over two prompts
// and tool turns: every POST /v1/messages?beta=true was streamed with
// max_tokens 128000 and the tool list. Without
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC it adds only a HEAD /api/hello
// probe. Side requests other versions send (a quota probe with max_tokens 1,
// title or summary generation without tools) get a harmless text answer and
// leave the script alone.
func IsMain(body map[string]any) bool {
	stream, _ := body["stream"].(bool)
	tools, _ := body["tools"].([]any)
	maxTokens, _ := body["max_tokens"].(float64)
	return stream && len(tools) > 0 && maxTokens > 1
}
