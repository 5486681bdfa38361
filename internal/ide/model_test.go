package ide

import (
	"maps"
	"testing"
)

// agentClient is a client whose CLI is agent (internal/companion's sessions say theirs).
type agentClient struct {
	nopClient
	agent string
}

func (c agentClient) Agent() string { return c.agent }

// Agents counts the clients that finished their handshake, by CLI; ClientsLine says it for
// the editors' status commands.
func TestAgents(t *testing.T) {
	m := New(nil, EditorInfo{Name: "T"}, nil, Events{}, nil)
	check := func(step string, want map[string]int, line string) {
		t.Helper()
		if got := m.Agents(); !maps.Equal(got, want) {
			t.Errorf("%s: Agents() = %v, want %v", step, got, want)
		}
		if got := ClientsLine(m.Agents()); got != line {
			t.Errorf("%s: ClientsLine = %q, want %q", step, got, line)
		}
	}
	check("none", map[string]int{}, "no clients")
	gemini := m.Connect(agentClient{agent: "gemini"})
	m.Ready(gemini)
	check("a Gemini", map[string]int{"gemini": 1}, "1 client (Gemini)")
	claude := m.Connect(nopClient{}) // no Agent method: Claude's WebSocket
	check("Claude before its handshake", map[string]int{"gemini": 1}, "1 client (Gemini)")
	m.Ready(claude)
	m.Ready(m.Connect(nopClient{}))
	m.Ready(m.Connect(agentClient{agent: "qwen"}))
	check("Claude twice, Gemini, Qwen", map[string]int{"claude": 2, "gemini": 1, "qwen": 1}, "4 clients (Claude 2, Gemini 1, Qwen 1)")
	m.Disconnect(gemini)
	check("Gemini gone", map[string]int{"claude": 2, "qwen": 1}, "3 clients (Claude 2, Qwen 1)")
}

// ClientsLine counts only what is there: an agent counted 0 is left out.
func TestClientsLineZero(t *testing.T) {
	if got := ClientsLine(map[string]int{"claude": 0, "gemini": 1}); got != "1 client (Gemini)" {
		t.Errorf("ClientsLine = %q", got)
	}
	if got := ClientsLine(map[string]int{"qwen": 0}); got != "no clients" {
		t.Errorf("ClientsLine = %q", got)
	}
}
