package ide_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
)

// mentionSink is a client that records what it is sent.
type mentionSink struct {
	mu   sync.Mutex
	sent [][]byte
}

func (s *mentionSink) Send(msg []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, msg)
}
func (s *mentionSink) SendLatest(msg []byte) { s.Send(msg) }

// Issue 35 item 6: 50,000 atMentioned while no Claude was connected were all held (17 to 490
// MiB). The held set is bounded in count and bytes, counted in the memory budget; the oldest
// are dropped, and the first client to listen gets the newest, in order, once.
func TestHeldMentionsBounded(t *testing.T) {
	dir := t.TempDir()
	b := membudget.New(64 << 20)
	m := ide.New(&fuzzEditor{}, ide.EditorInfo{Name: "T", Caps: fuzzCaps}, []string{dir}, ide.Events{}, nil)
	m.Budget = b
	defer m.Close()
	const n = 50000
	path := func(i int) string { return fmt.Sprintf("%s/file-%06d.go", dir, i) }
	for i := range n {
		if d, held, err := m.AtMentioned(ide.Mention{FilePath: path(i)}); d != 0 || !held || err != nil {
			t.Fatalf("mention %d: delivered %d, held %v, %v", i, d, held, err)
		}
	}
	count, bytes := m.HeldMentions()
	if count != ide.MaxHeldMentions || bytes > ide.MaxHeldMentionBytes || b.Used() != int64(bytes) {
		t.Fatalf("held %d mentions, %d bytes, the budget %d; want %d mentions in at most %d bytes, all counted",
			count, bytes, b.Used(), ide.MaxHeldMentions, ide.MaxHeldMentionBytes)
	}
	c := &mentionSink{}
	id := m.Connect(c)
	m.Ready(id)
	m.Listening(id)
	if len(c.sent) != ide.MaxHeldMentions {
		t.Fatalf("the client got %d mentions, want the %d held", len(c.sent), ide.MaxHeldMentions)
	}
	for i, msg := range c.sent {
		var got struct{ Params ide.Mention }
		json.Unmarshal(msg, &got)
		if want := path(n - ide.MaxHeldMentions + i); got.Params.FilePath != want {
			t.Fatalf("replayed mention %d is %s, want %s (the newest, in order)", i, got.Params.FilePath, want)
		}
	}
	if count, bytes := m.HeldMentions(); count != 0 || bytes != 0 || b.Used() != 0 {
		t.Fatalf("after the replay: held %d, %d bytes, the budget %d", count, bytes, b.Used())
	}
	// Big mentions: the byte bound holds before the count bound.
	long := make([]byte, 8<<10)
	for i := range long {
		long[i] = 'a'
	}
	m.Disconnect(id)
	for i := range 100 {
		m.AtMentioned(ide.Mention{FilePath: fmt.Sprintf("%s/%s-%d", dir, long, i)})
	}
	if count, bytes := m.HeldMentions(); bytes > ide.MaxHeldMentionBytes || count >= 100 || count == 0 {
		t.Fatalf("8 KiB mentions: held %d, %d bytes", count, bytes)
	}
}
