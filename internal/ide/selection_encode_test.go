package ide

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// The hand-written selection_changed says what encoding/json says: same JSON value for any text
// and path, including escapes, control characters, invalid UTF-8 and U+2028.
func FuzzEncodeSelection(f *testing.F) {
	for _, s := range []string{"", "plain", `q"uote\back/slash`, "tab\tnl\ncr\r\x00\x01\x1f\x7f", "ünïcødé ✻ 𝄞",
		"bad \xff\xfe utf8 \xe2\x82", "line\u2028para\u2029", "<html> & </html>"} {
		f.Add(s, "/w/"+s, 3, 7, false)
	}
	f.Fuzz(func(t *testing.T, text, path string, line, char int, empty bool) {
		sel := Selection{Text: text, FilePath: path, Selection: SelectionPos{
			Start: Position{Line: line, Character: char}, End: Position{Line: line + 1, Character: -char}, IsEmpty: empty}}
		for _, url := range []string{"", FileURL(path)} {
			sel.FileURL = url
			want, err := jsonrpc.EncodeNotification("selection_changed", sel)
			if err != nil {
				t.Fatal(err)
			}
			got := encodeSelection(&sel)
			var w, g any
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("invalid JSON %q: %v", got, err)
			}
			if !reflect.DeepEqual(w, g) {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		}
	})
}
