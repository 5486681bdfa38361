package ide

import "encoding/json"

// Observer is told of every tools/call a Claude client makes, before the tool runs and on the
// caller's goroutine, so that it sees the file as it was: the CLI calls getDiagnostics {uri}
// right before it writes an Edit/Write, and closeAllDiffTabs at each prompt
// (../shared/claude-cli-facts.md). ToolCall must be quick (it delays the tool's answer) and
// must not call back into the Model. Package review is the one observer.
type Observer interface {
	ToolCall(id ClientID, name string, args json.RawMessage)
}

type observerBox struct{ o Observer }

// SetObserver makes o the observer (nil: none). Safe to call at any time.
func (m *Model) SetObserver(o Observer) { m.observer.Store(&observerBox{o}) }

func (m *Model) observe(id ClientID, name string, args json.RawMessage) {
	if b := m.observer.Load(); b != nil && b.o != nil {
		b.o.ToolCall(id, name, args)
	}
}
