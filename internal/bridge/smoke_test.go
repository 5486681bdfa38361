package bridge_test

import (
	"path/filepath"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

func TestOpenDiffAcceptRoundTrip(t *testing.T) {
	t.Parallel()
	b, ed := start(t)
	c := connect(t, b)
	ctx := testbin.Ctx(t)
	path := filepath.Join(b.Model.Folders()[0], "a.txt")
	type res struct {
		texts []string
		err   error
	}
	done := make(chan res, 1)
	go func() {
		r, err := c.Tool(ctx, "openDiff", map[string]any{"old_file_path": path, "new_file_path": path, "new_file_contents": "new\n", "tab_name": "T1"})
		if err != nil {
			done <- res{err: err}
			return
		}
		done <- res{texts: r.Texts()}
	}()
	p := <-ed.shown
	if p.TabName != "T1" || p.NewContents.String() != "new\n" || p.FileExists {
		t.Fatalf("shown %+v", p)
	}
	if err := accept(b, p, "edited\n"); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || len(r.texts) != 2 || r.texts[0] != "FILE_SAVED" || r.texts[1] != "edited\n" {
		t.Fatalf("got %+v", r)
	}
}
