package ide_test

import (
	"sync/atomic"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
)

// latestClient keeps what a transport client would send next; it never blocks, as the
// Client contract requires.
type latestClient struct{ latest atomic.Pointer[[]byte] }

func (c *latestClient) Send(msg []byte)       { c.latest.Store(&msg) }
func (c *latestClient) SendLatest(msg []byte) { c.latest.Store(&msg) }

// BenchmarkSelectionFanout16 is one editor selection update reaching 16 ready clients: encode
// once, compare with the last sent, hand the same bytes to every client.
func BenchmarkSelectionFanout16(b *testing.B) {
	m := ide.New(nil, ide.EditorInfo{Name: "Bench", TrackSelection: true}, []string{"/w"}, ide.Events{}, nil)
	clients := make([]*latestClient, 16)
	for i := range clients {
		clients[i] = &latestClient{}
		id := m.Connect(clients[i])
		m.Ready(id)
		m.Listening(id)
		m.Listening(id)
	}
	sel := ide.Selection{Text: "func (m *Model) SelectionChanged(sel Selection) {", FilePath: "/w/internal/ide/selection.go",
		Selection: ide.SelectionPos{End: ide.Position{Character: 52}}}
	b.ReportAllocs()
	line := 0
	for b.Loop() {
		line++
		sel.Selection.Start.Line, sel.Selection.End.Line = line, line // differs each time: always sent
		m.SelectionChanged(sel)
	}
	if clients[15].latest.Load() == nil {
		b.Fatal("client 16 got nothing")
	}
}
