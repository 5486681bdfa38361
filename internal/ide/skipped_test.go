package ide

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

type nopClient struct{}

func (nopClient) Send([]byte)       {}
func (nopClient) SendLatest([]byte) {}

// The CLI's calls around an Edit/Write (getDiagnostics {uri}, openDiff in the modes that show
// diffs, getDiagnostics {}) tell a mode that writes without a diff: DiffsSkipped, once per client,
// never for a client that showed its diff or did not write.
func TestDiffsSkipped(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "a.txt")
	var mu sync.Mutex
	var told []string
	m := New(nil, EditorInfo{Name: "T"}, []string{dir}, Events{DiffsSkipped: func(id ClientID, p string) {
		mu.Lock()
		defer mu.Unlock()
		told = append(told, string(rune('0'+id))+":"+p)
	}}, nil)
	get := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string{}, told...)
	}
	call := func(id ClientID, name string, args any) {
		t.Helper()
		b, _ := json.Marshal(args)
		if _, err := m.CallTool(context.Background(), id, name, b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	n := 0
	edit := func(id ClientID, diff, write bool) {
		t.Helper()
		n++
		call(id, "getDiagnostics", map[string]string{"uri": "file://" + f})
		if diff {
			call(id, "openDiff", map[string]string{"old_file_path": f, "new_file_path": f, "new_file_contents": "x", "tab_name": "t"})
		}
		if write {
			if err := os.WriteFile(f, []byte(string(rune('a'+n))+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		call(id, "getDiagnostics", map[string]any{})
	}
	if err := os.WriteFile(f, []byte("start\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	def, auto := m.Connect(nopClient{}), m.Connect(nopClient{})
	edit(def, true, true)    // default mode: a diff, then the write
	edit(auto, false, false) // no write (a refused edit)
	edit(def, true, true)
	// In default mode the CLI may ask getDiagnostics {uri} after the accept and before it writes
	// the accepted text (seen with the real CLI under load): that write is the diff's.
	edit(def, false, true)
	if got := get(); len(got) != 0 {
		t.Fatalf("told %v for clients that showed their diffs or wrote nothing", got)
	}
	edit(auto, false, true) // auto mode: written, no diff
	edit(auto, false, true)
	edit(def, true, true)
	want := "2:" + f
	if got := get(); len(got) != 1 || got[0] != want {
		t.Fatalf("told %v, want [%s]", got, want)
	}
	// A new Claude in auto mode is told again, without the getDiagnostics after the write (the
	// CLI skips it when the editor has no diagnostics): the file is looked at meanwhile.
	id := m.Connect(nopClient{})
	call(id, "getDiagnostics", map[string]string{"uri": "file://" + f})
	if err := os.WriteFile(f, []byte("last\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 400 && len(get()) < 2; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if got := get(); len(got) != 2 || got[1] != "3:"+f {
		t.Fatalf("told %v, want a second notice for client 3", got)
	}
}
