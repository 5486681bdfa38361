package jsonrpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/texts"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// Hot paths of both channels: every message is decoded once and every notification encoded
// once. The big case is an openDiff carrying a 10 MiB file, the largest message the CLI sends.

func selectionParams() map[string]any {
	return map[string]any{
		"text": "func (m *Model) SelectionChanged(sel Selection) {", "filePath": "/w/internal/ide/selection.go",
		"fileUrl":   "file:///w/internal/ide/selection.go",
		"selection": map[string]any{"start": map[string]int{"line": 14, "character": 0}, "end": map[string]int{"line": 14, "character": 52}, "isEmpty": false},
	}
}

// bigText is about n bytes of issue 27's text (bench/texts): distinct source-like lines in four
// languages, with the characters JSON must escape.
func bigText(n int) string { return texts.Realistic(n, 10, 1).New }

func openDiffMessage(n int) []byte {
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{
		"name": "openDiff", "arguments": map[string]any{"old_file_path": "/w/a.go", "new_file_path": "/w/a.go",
			"new_file_contents": bigText(n), "tab_name": "✻ [Claude Code] a.go (aa7495) ⧉"}}})
	return msg
}

func BenchmarkDecode(b *testing.B) {
	sel, _ := jsonrpc.EncodeNotification("selection_changed", selectionParams())
	big := openDiffMessage(10 << 20)
	b.Run("selection", func(b *testing.B) { benchDecode(b, sel, false) })
	// A text the bridge has not seen (one byte changed each time): checked in full.
	b.Run("openDiff10MiB", func(b *testing.B) { benchDecode(b, big, true) })
	// The same text again, as the next layer or the editor's accept brings it: found by hash.
	b.Run("openDiff10MiB-seen", func(b *testing.B) { benchDecode(b, big, false) })
}

func benchDecode(b *testing.B, msg []byte, vary bool) {
	// A letter inside the text that is no escape's and no hex digit: changing it keeps the JSON valid.
	at := bytes.Index(msg, []byte(`contents":"`)) + 100
	for msg[at] < 'g' || msg[at] > 'z' || msg[at-1] == '\\' {
		at++
	}
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if vary {
			n++
			msg[at] = 'g' + byte(n%20)
		}
		if _, err := jsonrpc.Decode(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	big := map[string]any{"tabName": "✻ [Claude Code] a.go (aa7495) ⧉", "filePath": "/w/a.go", "newFilePath": "/w/a.go", "newContents": bigText(10 << 20), "fileExists": true}
	for _, c := range []struct {
		name   string
		params any
	}{{"selection", selectionParams()}, {"showDiff10MiB", big}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				msg, err := jsonrpc.EncodeNotification("m", c.params)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(msg)))
			}
		})
	}
}

// BenchmarkLineStreamRead reads a 10 MiB line as the stdio channel does.
func BenchmarkLineStreamRead(b *testing.B) {
	msg := append(openDiffMessage(10<<20), '\n')
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		s := jsonrpc.NewLineStream(bytes.NewReader(msg), benchSink{io.Discard})
		if _, err := s.Read(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

type benchSink struct{ io.Writer }

func (benchSink) Close() error { return nil }

// BenchmarkUnmarshalParams decodes a selectionChanged's params (an editor sends one per
// keystroke) into the shape the bridge uses.
func BenchmarkUnmarshalParams(b *testing.B) {
	type pos struct {
		Line      int `json:"line"`
		Character int `json:"character"`
	}
	var sel struct {
		Text      string `json:"text"`
		FilePath  string `json:"filePath"`
		FileURL   string `json:"fileUrl"`
		Selection struct {
			Start   pos  `json:"start"`
			End     pos  `json:"end"`
			IsEmpty bool `json:"isEmpty"`
		} `json:"selection"`
	}
	params, _ := json.Marshal(selectionParams())
	b.SetBytes(int64(len(params)))
	b.ReportAllocs()
	for b.Loop() {
		if err := jsonrpc.UnmarshalParams(params, &sel); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTextString10MiB is the decode of a 10 MiB proposal that `serve --auto` does for its
// summary (issue 27: ~20 ms of its CPU per proposal in a profile).
func BenchmarkTextString10MiB(b *testing.B) {
	t := jsonrpc.TextOf(bigText(10 << 20))
	b.SetBytes(int64(len(t.JSON())))
	b.ReportAllocs()
	for b.Loop() {
		_ = t.String()
	}
}
