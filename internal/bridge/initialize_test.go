package bridge_test

import (
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// Facts file "Handshake": the result's protocolVersion "must be one of 2025-11-25, 2025-06-18,
// 2025-03-26, 2024-11-05, 2024-10-07". Spec 000: the protocol "is based on MCP (Model Context
// Protocol) specification 2025-03-26", so an unknown or missing version gets 2025-03-26.
func TestInitializeNegotiation(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	tests := []struct {
		asked any // nil: the field is left out
		want  string
	}{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"1999-01-01", "2025-03-26"},
		{nil, "2025-03-26"},
	}
	for _, tt := range tests {
		c, _, err := probe.Dial(testbin.Ctx(t), b.Port(), b.Token(), nil)
		if err != nil {
			t.Fatal(err)
		}
		params := map[string]any{"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "claude-code", "version": "x"}}
		if tt.asked != nil {
			params["protocolVersion"] = tt.asked
		}
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
			Capabilities    struct {
				Tools map[string]any `json:"tools"`
			} `json:"capabilities"`
		}
		err = c.Call(testbin.Ctx(t), "initialize", params, &res)
		c.Close()
		if err != nil {
			t.Fatalf("asked %v: %v", tt.asked, err)
		}
		if res.ProtocolVersion != tt.want {
			t.Errorf("asked %v: answered %q, want %q", tt.asked, res.ProtocolVersion, tt.want)
		}
		// Facts file: the CLI sends tools/list "only if the result declared capabilities.tools".
		if res.Capabilities.Tools == nil {
			t.Errorf("asked %v: no capabilities.tools", tt.asked)
		}
	}
}
