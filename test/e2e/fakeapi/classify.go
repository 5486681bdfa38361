package fakeapi

// IsMain reports whether a Messages request body belongs to the main
// conversation (and so consumes a scripted turn): a streamed request that
// offers the model tools and room to answer. Side requests (a quota probe
// with max_tokens 1, title or summary generation without tools) get a
// harmless text answer instead.
func IsMain(body map[string]any) bool {
	stream, _ := body["stream"].(bool)
	tools, _ := body["tools"].([]any)
	maxTokens, _ := body["max_tokens"].(float64)
	return stream && len(tools) > 0 && maxTokens > 1
}
