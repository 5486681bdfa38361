package ide

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// agentClient is a client whose CLI is agent (internal/companion's sessions say theirs).
type agentClient struct {
	nopClient
	agent string
}

func (c agentClient) Agent() string { return c.agent }

// Agents counts the clients that finished their handshake, by CLI; Line says it for the
// editors' status commands. The editor is told who is connected after each change.
func TestAgents(t *testing.T) {
	var told []string
	tell := func(what string) func(ClientID, string, Agents) {
		return func(id ClientID, agent string, now Agents) {
			told = append(told, fmt.Sprintf("%s %d %s: %s", what, id, agent, now.Line()))
		}
	}
	m := New(nil, EditorInfo{Name: "T"}, nil, Events{ClientConnected: tell("connected"), ClientDisconnected: tell("disconnected")}, nil)
	check := func(step string, want map[string]int, line string) {
		t.Helper()
		if got := m.Agents(); !maps.Equal(got, want) {
			t.Errorf("%s: Agents() = %v, want %v", step, got, want)
		}
		if got := m.Agents().Line(); got != line {
			t.Errorf("%s: Line = %q, want %q", step, got, line)
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
	want := []string{
		"connected 1 gemini: 1 client (Gemini)",
		"connected 2 claude: 2 clients (Claude 1, Gemini 1)",
		"connected 3 claude: 3 clients (Claude 2, Gemini 1)",
		"connected 4 qwen: 4 clients (Claude 2, Gemini 1, Qwen 1)",
		"disconnected 1 gemini: 3 clients (Claude 2, Qwen 1)",
	}
	if !slices.Equal(told, want) {
		t.Errorf("the editor was told:\n%s\nwant:\n%s", strings.Join(told, "\n"), strings.Join(want, "\n"))
	}
}

// Line counts only what is there: an agent counted 0 is left out.
func TestAgentsLineZero(t *testing.T) {
	if got := (Agents{"claude": 0, "gemini": 1}).Line(); got != "1 client (Gemini)" {
		t.Errorf("Line = %q", got)
	}
	if got := (Agents{"qwen": 0}).Line(); got != "no clients" {
		t.Errorf("Line = %q", got)
	}
}
