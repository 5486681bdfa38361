package stdio

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/pathmap"
)

// BenchmarkMapInSelection is the cost the path map adds to each selectionChanged (the message an
// editor sends most): decode, translate, encode.
func BenchmarkMapInSelection(b *testing.B) {
	pm, err := pathmap.Parse([]string{"/Users/me/app=/srv/app", "/Users/me=/home/me"})
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []int{10, 10 << 10} {
		params, _ := json.Marshal(map[string]any{"text": strings.Repeat("x", size), "filePath": "/Users/me/app/internal/x.go",
			"selection": map[string]any{"start": map[string]int{"line": 1, "character": 2}, "end": map[string]int{"line": 3, "character": 4}, "isEmpty": false}})
		req := &jsonrpc.Request{Method: "selectionChanged", Params: params}
		b.Run(map[int]string{10: "text=10B", 10 << 10: "text=10KiB"}[size], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := mapIn(pm, req)
				if err != nil || !strings.Contains(string(out.Params), `"/srv/app/internal/x.go"`) {
					b.Fatal(err)
				}
			}
		})
	}
}
