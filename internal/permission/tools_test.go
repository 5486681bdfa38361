package permission

import (
	"encoding/json"
	"testing"
)

func TestToolsMatch(t *testing.T) {
	for _, c := range []struct {
		json string
		any  bool
		yes  []string
		no   []string
	}{
		{`true`, true, []string{"Bash", "mcp__x__y"}, nil},
		{`false`, false, nil, []string{"Bash"}},
		{`[]`, false, nil, []string{"Bash"}},
		{`["Bash","mcp__*"]`, true, []string{"Bash", "mcp__ide__getDiagnostics", "mcp__"}, []string{"bash", "BashX", "WebFetch", "mcp_x"}},
		{`["*"]`, true, []string{"Bash", "WebFetch"}, nil},
	} {
		var tools Tools
		if err := json.Unmarshal([]byte(c.json), &tools); err != nil {
			t.Fatalf("%s: %v", c.json, err)
		}
		if tools.Any() != c.any {
			t.Errorf("%s: Any %v", c.json, tools.Any())
		}
		for _, n := range c.yes {
			if !tools.Match(n) {
				t.Errorf("%s does not match %s", c.json, n)
			}
		}
		for _, n := range c.no {
			if tools.Match(n) {
				t.Errorf("%s matches %s", c.json, n)
			}
		}
		if out, _ := json.Marshal(tools); string(out) != c.json {
			t.Errorf("%s marshals to %s", c.json, out)
		}
	}
	for _, bad := range []string{`7`, `"Bash"`, `[""]`, `[1]`} {
		var tools Tools
		if err := json.Unmarshal([]byte(bad), &tools); err == nil {
			t.Errorf("%s was taken", bad)
		}
	}
}

// serve --permissions: the flag's words are the capability's values.
func TestParseTools(t *testing.T) {
	for flag, want := range map[string]string{"all": `true`, "none": `false`, "Bash": `["Bash"]`, "Bash, WebFetch,mcp__*": `["Bash","WebFetch","mcp__*"]`} {
		tools, err := ParseTools(flag)
		if err != nil {
			t.Fatalf("%q: %v", flag, err)
		}
		if out, _ := json.Marshal(tools); string(out) != want {
			t.Errorf("%q reads as %s, want %s", flag, out, want)
		}
	}
	for _, bad := range []string{"", "Bash,", ",", "Bash,,WebFetch"} {
		if _, err := ParseTools(bad); err == nil {
			t.Errorf("%q was taken", bad)
		}
	}
}
