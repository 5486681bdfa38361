package fakeapi

import (
	"encoding/json"
	"fmt"
	"io"
)

// Model is the model name the fake reports in every message.
const Model = "claude-fake-1"

// writeSSE writes turn as a streamed Messages response: message_start, then
// per block content_block_start, deltas and content_block_stop, then
// message_delta (with the stop reason) and message_stop. Text and tool input
// are split over several deltas, as the real API does, so the client's
// reassembly is exercised.
func writeSSE(w io.Writer, msgID string, t Turn) error {
	bs, err := t.blocks()
	if err != nil {
		return err
	}
	ev := func(name string, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
		return err
	}
	type obj = map[string]any
	steps := []func() error{func() error {
		return ev("message_start", obj{"type": "message_start", "message": obj{
			"id": msgID, "type": "message", "role": "assistant", "model": Model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": obj{"input_tokens": 10, "output_tokens": 1},
		}})
	}}
	for i, b := range bs {
		steps = append(steps, func() error {
			start := obj{"type": b.Type}
			switch b.Type {
			case "text":
				start["text"] = ""
			case "tool_use":
				start["id"], start["name"], start["input"] = b.ID, b.Name, obj{}
			}
			if err := ev("content_block_start", obj{"type": "content_block_start", "index": i, "content_block": start}); err != nil {
				return err
			}
			for _, part := range chunks(b) {
				if err := ev("content_block_delta", obj{"type": "content_block_delta", "index": i, "delta": part}); err != nil {
					return err
				}
			}
			return ev("content_block_stop", obj{"type": "content_block_stop", "index": i})
		})
	}
	steps = append(steps, func() error {
		return ev("message_delta", obj{"type": "message_delta",
			"delta": obj{"stop_reason": t.stopReason(), "stop_sequence": nil},
			"usage": obj{"output_tokens": 5}})
	}, func() error {
		return ev("message_stop", obj{"type": "message_stop"})
	})
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

// chunks splits a block's payload into at most three deltas.
func chunks(b block) []map[string]any {
	var s, typ, key string
	switch b.Type {
	case "text":
		s, typ, key = b.Text, "text_delta", "text"
	case "tool_use":
		s, typ, key = string(b.Input), "input_json_delta", "partial_json"
	}
	var out []map[string]any
	for _, p := range split3(s) {
		out = append(out, map[string]any{"type": typ, key: p})
	}
	return out
}

// split3 cuts s into up to three non-empty pieces on rune boundaries.
func split3(s string) []string {
	r := []rune(s)
	if len(r) < 3 {
		if len(r) == 0 {
			return nil
		}
		return []string{s}
	}
	a, b := len(r)/3, 2*len(r)/3
	return []string{string(r[:a]), string(r[a:b]), string(r[b:])}
}

// message renders turn as a non-streamed Messages response body.
func message(msgID string, t Turn) (map[string]any, error) {
	bs, err := t.blocks()
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": Model,
		"content": bs, "stop_reason": t.stopReason(), "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5},
	}, nil
}
