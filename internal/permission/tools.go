package permission

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Tools is an editor's askPermission capability: which tools' prompts it is asked about.
// JSON false (or absent): none; true: every tool; a list of tool names: those, an entry
// ending in "*" matching every name with that prefix ("mcp__*"). A prompt for a tool outside
// it stays in Claude's terminal alone, at once.
type Tools struct {
	all   bool
	names []string
}

// AllTools is the capability true.
func AllTools() Tools { return Tools{all: true} }

// UnmarshalJSON reads true, false or a list of names.
func (t *Tools) UnmarshalJSON(b []byte) error {
	var on bool
	if err := json.Unmarshal(b, &on); err == nil {
		*t = Tools{all: on}
		return nil
	}
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return fmt.Errorf("must be true, false or a list of tool names")
	}
	for _, n := range names {
		if n == "" {
			return fmt.Errorf("a tool name is empty")
		}
	}
	*t = Tools{names: names}
	return nil
}

// ParseTools reads a command-line flag: "all", "none", or tool names separated by commas
// (an entry ending in "*" as in the capability).
func ParseTools(s string) (Tools, error) {
	switch s {
	case "all":
		return AllTools(), nil
	case "none":
		return Tools{}, nil
	}
	names := strings.Split(s, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
		if names[i] == "" {
			return Tools{}, fmt.Errorf("want all, none or tool names separated by commas (Bash,WebFetch,mcp__*), not %q", s)
		}
	}
	return Tools{names: names}, nil
}

// MarshalJSON writes what UnmarshalJSON reads.
func (t Tools) MarshalJSON() ([]byte, error) {
	if t.names == nil {
		return json.Marshal(t.all)
	}
	return json.Marshal(t.names)
}

// Any is whether some tool's prompts are asked.
func (t Tools) Any() bool { return t.all || len(t.names) > 0 }

// Match is whether tool's prompts are asked.
func (t Tools) Match(tool string) bool {
	if t.all {
		return true
	}
	for _, n := range t.names {
		if n == tool || (strings.HasSuffix(n, "*") && strings.HasPrefix(tool, n[:len(n)-1])) {
			return true
		}
	}
	return false
}

// IsDiffTool is whether tool's permission prompt is the diff the editor shows (openDiff): asked
// as well, the bare question (a path, no diff) came first and its Yes wrote the file unseen.
func IsDiffTool(tool string) bool {
	switch tool {
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return true
	}
	return false
}
