package bridge_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

func sel(file string, line int) ide.Selection {
	return ide.Selection{Text: "x", FilePath: file, Selection: ide.SelectionPos{
		Start: ide.Position{Line: line}, End: ide.Position{Line: line, Character: 1}}}
}

// Spec 000 getLatestSelection: "Get the most recent text selection (even if not in active
// editor)"; selection_changed is "Sent whenever the user's selection changes".
func TestLatestSelectionKept(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	c := connect(t, b)
	b.Model.SelectionChanged(sel("/w/a.go", 1))
	b.Model.SelectionChanged(sel("/w/b.go", 7))
	wantObject("fileUrl?,filePath,selection,success,text", map[string]any{"filePath": "/w/b.go", "fileUrl": "file:///w/b.go"})(t, tool(t, c, "getLatestSelection", nil))
	// The first may be coalesced away or repeated; the client must end on the latest.
	ctx := testbin.Ctx(t)
	for {
		m, err := c.Next(ctx, "selection_changed")
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			FilePath  string `json:"filePath"`
			Selection struct {
				Start struct {
					Line int `json:"line"`
				} `json:"start"`
			} `json:"selection"`
		}
		json.Unmarshal(m.Params, &p)
		if p.FilePath == "/w/b.go" {
			if p.Selection.Start.Line != 7 {
				t.Fatalf("latest selection_changed %s", m.Params)
			}
			return
		}
	}
}

// recorder is an ide.Client that counts what the Model gives it.
type recorder struct {
	mu     sync.Mutex
	latest [][]byte
	sent   [][]byte
}

func (r *recorder) Send(msg []byte) { r.mu.Lock(); r.sent = append(r.sent, msg); r.mu.Unlock() }
func (r *recorder) SendLatest(msg []byte) {
	r.mu.Lock()
	r.latest = append(r.latest, msg)
	r.mu.Unlock()
}

// The same selection twice is sent once: the editor protocol says "the bridge also drops
// repeats". A recorder next to the real clients sees exactly what the Model hands out.
func TestSelectionSentOnlyOnChange(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	rec := &recorder{}
	id := b.Model.Connect(rec)
	b.Model.Ready(id)
	b.Model.Listening(id)
	for _, s := range []ide.Selection{sel("/w/a.go", 1), sel("/w/a.go", 1), sel("/w/a.go", 2), sel("/w/a.go", 2), sel("/w/a.go", 1)} {
		b.Model.SelectionChanged(s)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.latest) != 3 {
		t.Fatalf("%d selection_changed for 3 changes: %s", len(rec.latest), rec.latest)
	}
}

func intp(i int) *int { return &i }

// nextMention waits for the next at_mentioned and returns its params as a map.
func nextMention(t *testing.T, c *probe.Client) map[string]any {
	t.Helper()
	m, err := c.Next(testbin.Ctx(t), "at_mentioned")
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// Spec 000 at_mentioned: "lineStart and lineEnd are 0-based, and lineEnd is the last selected
// line" and "filePath is absolute"; facts file: "Omit both lines for a whole file."
func TestAtMentionedShape(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	c := connect(t, b)
	folder := b.Model.Folders()[0]
	tests := []struct {
		mention ide.Mention
		want    string // keys=values
	}{
		{ide.Mention{FilePath: "/w/a.go", LineStart: intp(0), LineEnd: intp(4)}, "filePath=/w/a.go lineEnd=4 lineStart=0"},
		{ide.Mention{FilePath: "/w/a.go"}, "filePath=/w/a.go"},
		// A relative path would resolve against Claude's cwd; the workspace folder is meant.
		{ide.Mention{FilePath: "sub/b.go", LineStart: intp(2), LineEnd: intp(2)}, "filePath=" + folder + "/sub/b.go lineEnd=2 lineStart=2"},
	}
	for _, tt := range tests {
		n, held, err := b.Model.AtMentioned(tt.mention)
		if err != nil || n != 1 || held {
			t.Fatalf("AtMentioned: %d, %v, %v", n, held, err)
		}
		p := nextMention(t, c)
		var got []string
		for _, k := range strings.Split(keys(p), ",") {
			got = append(got, fmt.Sprintf("%s=%v", k, p[k]))
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("at_mentioned %v, want %s", got, tt.want)
		}
	}
}

// With no client, a mention is held and goes to the first client once its handshake is done
// (editor protocol: "delivered to the first client that completes its handshake").
func TestMentionHeldForFirstClient(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	first, _, err := probe.Dial(testbin.Ctx(t), b.Port(), b.Token(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	// Connected but not initialized: not a client to tell yet.
	if n, held, err := b.Model.AtMentioned(ide.Mention{FilePath: "/w/held.go"}); n != 0 || !held || err != nil {
		t.Fatalf("AtMentioned: %d, %v, %v; want held", n, held, err)
	}
	if _, err := first.Handshake(testbin.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	if p := nextMention(t, first); p["filePath"] != "/w/held.go" {
		t.Fatalf("first client got %v", p)
	}
	// Delivered once: the next client gets only what comes after it connected.
	second := connect(t, b)
	if n, _, _ := b.Model.AtMentioned(ide.Mention{FilePath: "/w/new.go"}); n != 2 {
		t.Fatalf("delivered to %d clients, want 2", n)
	}
	if p := nextMention(t, second); p["filePath"] != "/w/new.go" {
		t.Fatalf("second client got %v first; the held mention went to the first client only", p)
	}
}

// A held mention older than MentionHold is dropped: the user has moved on.
func TestHeldMentionExpires(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	b.Model.MentionHold = time.Nanosecond // AtMentioned and Ready read it under the Model's lock
	if _, held, _ := b.Model.AtMentioned(ide.Mention{FilePath: "/w/old.go"}); !held {
		t.Fatal("not held")
	}
	c := connect(t, b)
	b.Model.AtMentioned(ide.Mention{FilePath: "/w/new.go"})
	// Held mentions are queued before any later one, so the first seen tells.
	if p := nextMention(t, c); p["filePath"] != "/w/new.go" {
		t.Fatalf("got %v, want the expired mention dropped", p)
	}
}
