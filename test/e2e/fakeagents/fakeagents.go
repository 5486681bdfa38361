// Package fakeagents is a scripted model API on loopback for the other agent CLIs the bridge
// serves (../shared/other-clis-facts.md §4): Google's Gemini API (SSE streamGenerateContent) for
// the Gemini CLI, and an OpenAI-compatible chat completions API for Qwen Code. Each main turn
// answers the next queued tool call, and the final text once the CLI sends a tool's result. Every
// request body is kept, to assert what the model was sent.
package fakeagents

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Call is a tool call the model makes.
type Call struct {
	Name string
	Args map[string]any
}

// Server is one fake API.
type Server struct {
	URL string
	srv *httptest.Server

	mu       sync.Mutex
	turns    []turn
	final    string   // of the turn whose call was made last
	requests []string // bodies of the main-turn requests
}

type turn struct {
	call  Call
	final string
}

// Push queues a turn: the model calls c, then says final once the CLI sends the call's result.
func (s *Server) Push(c Call, final string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turn{c, final})
}

// Requests returns the bodies of the main-turn requests so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Dump is every request, for a failing test's log.
func (s *Server) Dump() string {
	var b strings.Builder
	for i, r := range s.Requests() {
		if len(r) > 4000 {
			r = r[:2000] + " ... " + r[len(r)-2000:]
		}
		fmt.Fprintf(&b, "--- request %d\n%s\n", i+1, r)
	}
	return b.String()
}

func (s *Server) Close() { s.srv.Close() }

// next is the answer to a main turn: the next call unless the CLI just sent a tool's result.
func (s *Server) next(body string, toolResult bool) (*Call, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, body)
	if toolResult || len(s.turns) == 0 {
		return nil, s.final
	}
	t := s.turns[0]
	s.turns = s.turns[1:]
	s.final = t.final
	return &t.call, ""
}

func sse(w http.ResponseWriter, frames ...any) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, f := range frames {
		if s, ok := f.(string); ok {
			fmt.Fprintf(w, "data: %s\n\n", s)
			continue
		}
		b, _ := json.Marshal(f)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
}

// nextSpeaker is what a side request (a JSON question about the conversation) is answered.
const nextSpeaker = `{"reasoning":"the model answered","next_speaker":"user"}`

// Gemini is Google's Gemini API (GOOGLE_GEMINI_BASE_URL).
func Gemini() *Server {
	s := &Server{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		usage := map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
		text := func(t string) map[string]any {
			return map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": t}}},
				"finishReason": "STOP", "index": 0}}, "usageMetadata": usage}
		}
		switch {
		case strings.Contains(r.URL.Path, ":streamGenerateContent"):
			var req struct {
				Contents []struct {
					Parts []map[string]json.RawMessage `json:"parts"`
				} `json:"contents"`
			}
			json.Unmarshal(b, &req)
			result := false
			if n := len(req.Contents); n > 0 {
				for _, p := range req.Contents[n-1].Parts {
					_, ok := p["functionResponse"]
					result = result || ok
				}
			}
			c, final := s.next(string(b), result)
			if c == nil {
				sse(w, text(final))
				return
			}
			sse(w, map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model",
				"parts": []any{map[string]any{"functionCall": map[string]any{"name": c.Name, "args": c.Args}}}},
				"finishReason": "STOP", "index": 0}}, "usageMetadata": usage})
		case strings.Contains(r.URL.Path, ":generateContent"):
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(text(nextSpeaker))
		case strings.Contains(r.URL.Path, ":countTokens"):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"totalTokens":10}`)
		default:
			http.NotFound(w, r)
		}
	}))
	s.URL = s.srv.URL
	return s
}

// QwenSettings is Qwen Code's settings.json (in $QWEN_HOME) for a run against OpenAI(): auth by
// an OpenAI key, the fake model, the IDE integration on, and no update check at start-up (it
// runs `npm view`, one more Node process and a network attempt).
func QwenSettings() map[string]any {
	return map[string]any{
		"general":  map[string]any{"enableAutoUpdate": false},
		"security": map[string]any{"auth": map[string]any{"selectedType": "openai"}, "folderTrust": map[string]any{"enabled": false}},
		"model":    map[string]any{"name": "fake-model"}, "ide": map[string]any{"enabled": true, "hasSeenNudge": true}}
}

// QwenEnv is Qwen Code's environment for a run against s, an OpenAI(). QWEN_CODE_NO_RELAUNCH:
// otherwise the CLI starts a second copy of itself for a bigger heap and loads its bundle
// again (0.24.4: 5.0-6.5 s of CPU to its prompt instead of 6.9-8.2 s).
func (s *Server) QwenEnv() []string {
	return []string{"OPENAI_BASE_URL=" + s.URL + "/v1", "OPENAI_API_KEY=fake", "OPENAI_MODEL=fake-model", "QWEN_CODE_NO_RELAUNCH=true"}
}

// OpenAI is an OpenAI-compatible API (OPENAI_BASE_URL=<URL>/v1) for Qwen Code.
func OpenAI() *Server {
	s := &Server{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var req struct {
			Stream   bool `json:"stream"`
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		json.Unmarshal(b, &req)
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"id": "c0", "object": "chat.completion", "created": 1, "model": "fake-model",
				"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": nextSpeaker}, "finish_reason": "stop"}},
				"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
			return
		}
		result := len(req.Messages) > 0 && req.Messages[len(req.Messages)-1].Role == "tool"
		c, final := s.next(string(b), result)
		chunk := func(delta map[string]any, finish any) map[string]any {
			return map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "fake-model",
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		}
		usage := map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "fake-model", "choices": []any{},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
		if c == nil {
			sse(w, chunk(map[string]any{"role": "assistant", "content": final}, nil), chunk(map[string]any{}, "stop"), usage, "[DONE]")
			return
		}
		args, _ := json.Marshal(c.Args)
		sse(w, chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": string(args)}}}}, nil),
			chunk(map[string]any{}, "tool_calls"), usage, "[DONE]")
	}))
	s.URL = s.srv.URL
	return s
}
