// Package claudecmd composes how a claude is started against the bridge: its argv, its
// environment, the line a user would type, and the permission mode it gets with why. serve's
// banner and the editor protocol's claudeCommand (every editor's :ClaudeCode) both come from
// Compose: the permission flag, the hooks' --settings, --mcp-config and the "edits skip diffs"
// notice have this one home.
package claudecmd

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permmode"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
)

// Request is what the user chose (the editor protocol's claudeCommand params).
type Request struct {
	// Command is the program and its own words (an editor's terminal_cmd); default ["claude"].
	// The words after the program count as the user's arguments.
	Command []string `json:"command"`
	// Args are the user's extra arguments (:ClaudeCode --resume); they come last.
	Args []string `json:"args"`
	// PermissionMode is the mode the user chose: a mode adds --permission-mode MODE, Off adds
	// neither a permission flag nor the bridge's hooks, "" lets the bridge decide
	// (permmode.Decide).
	PermissionMode Mode `json:"permissionMode"`
	// ModelTools false leaves out --mcp-config (the model's code tools); default true.
	ModelTools *bool `json:"modelTools"`
	// Remote says the argv runs on another machine (the editor wraps it for ssh): its
	// program is the remote's, not looked up here.
	Remote bool `json:"remote"`
	// Agent is the CLI to start: "claude" (""), or another the bridge serves as an IDE
	// companion ("gemini", "qwen"; agent.go).
	Agent string `json:"agent"`
}

// Mode is a permission mode the user chose: a string, or false (Off: add no flag).
type Mode string

// Off is the JSON false of permissionMode: the user wants no permission flag added.
const Off Mode = "\x00off"

// UnmarshalJSON takes a string, false (Off) or null ("").
func (m *Mode) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "false":
		*m = Off
		return nil
	case "null":
		*m = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New(`"permissionMode" must be a mode or false`)
	}
	*m = Mode(s)
	return nil
}

// Bridge is what Compose needs of the running bridge.
type Bridge struct {
	Env       map[string]string // the variables claude needs (discovery.Env)
	Cwd       string            // where claude starts: the first workspace folder
	Folders   []string          // the workspace folders: claude's program is never found in them
	Hooks     string            // the hooks' --settings file; "": none
	MCPConfig string            // the code tools' --mcp-config file; "": none
	Agents    map[string]int    // the other agents this bridge serves: name → its companion's port
}

// Command is how to start claude (the claudeCommand result).
type Command struct {
	Argv []string          `json:"argv"`
	Env  map[string]string `json:"env"`
	// Display is Argv as one POSIX shell line (words quoted only when they need it).
	Display string `json:"display"`
	// Shell is Display with Env's assignments first: for a shell that did not inherit Env.
	Shell string `json:"shell"`
	// PermissionMode is the mode claude starts in ("": the CLI's own default, auto).
	PermissionMode string `json:"permissionMode"`
	// Why says who chose PermissionMode, e.g. "set by /home/me/.claude/settings.json".
	Why string `json:"why"`
	// Notice is a sentence to show the user once: claude writes its edits without diffs in
	// the editor, and the user did not ask for that on the command line.
	Notice string `json:"notice,omitempty"`
}

// Compose applies the rule: Command, then the permission flag (the user's choice, else
// permmode's decision), the bridge's hooks (unless the user gives a --settings, the CLI takes
// one, or wants nothing added: Off), the code tools' --mcp-config, then Args.
//
// The program, when it is a plain name and not Remote, is looked up on this process's $PATH
// (the editor's) with trust.LookPath, outside b.Folders, and argv[0] is the path found:
// the workspace's files are the model's to write, so a `claude` in a workspace folder on
// $PATH (direnv's PATH_add bin) would let a Write run code. The error says why when only the
// workspace, or no folder, has it. A path or a shell word (an assignment, a quote) is the
// user's own and left as given.
//
// Another Agent gets its own command line (composeAgent).
func Compose(r Request, b Bridge) (Command, error) {
	if r.Agent != "" && r.Agent != "claude" {
		return composeAgent(r, b)
	}
	argv, err := program(r, "claude", b.Folders)
	if err != nil {
		return Command{}, err
	}
	user := append(append([]string{}, argv[1:]...), r.Args...)
	var chosen []string
	if r.PermissionMode != "" && r.PermissionMode != Off {
		chosen = []string{"--permission-mode", string(r.PermissionMode)}
	}
	d := permmode.Decide(append(chosen, user...), permmode.FromOS(b.Cwd))
	c := Command{Env: b.Env, PermissionMode: d.Mode}
	switch {
	case r.PermissionMode == Off && d.Add != nil:
		c.PermissionMode, c.Why = "", "no flag added (permissionMode false): the CLI's default, auto"
		d.SkipsDiffs = false // the user asked for no flag: nothing to tell them
	case d.Add != nil:
		c.Why = "claude-ide-bridge adds --permission-mode default"
		argv = append(argv, d.Add...)
	case d.Source == "arguments":
		c.Why = "set by the command line"
	default:
		c.Why = "set by " + d.Source
	}
	argv = append(argv, chosen...)
	if b.Hooks != "" && r.PermissionMode != Off && !hasFlag(user, "--settings") {
		argv = append(argv, "--settings", b.Hooks)
	}
	if b.MCPConfig != "" && (r.ModelTools == nil || *r.ModelTools) {
		argv = append(argv, "--mcp-config", b.MCPConfig)
	}
	c.Argv = append(argv, r.Args...)
	if d.Source != "arguments" {
		c.Notice = d.Warning()
	}
	c.lines()
	return c, nil
}

// program is r.Command (default [name]) with its program looked up as Compose says.
func program(r Request, name string, folders []string) ([]string, error) {
	argv := append([]string{}, r.Command...)
	if len(argv) == 0 {
		argv = []string{name}
	}
	if !r.Remote && plainName(argv[0]) {
		p, err := trust.LookPath(argv[0], "", folders)
		if err != nil {
			return nil, err
		}
		argv[0] = p
	}
	return argv, nil
}

// lines sets Display and Shell from Argv and Env.
func (c *Command) lines() {
	words := make([]string, len(c.Argv))
	for i, w := range c.Argv {
		words[i] = termtext.ShellQuote(w)
	}
	c.Display = strings.Join(words, " ")
	assigns := make([]string, 0, len(c.Env)+1)
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		assigns = append(assigns, k+"="+termtext.ShellQuote(c.Env[k]))
	}
	c.Shell = strings.Join(append(assigns, c.Display), " ")
}

// plainName reports whether w is a program name $PATH is searched for: no separator, and
// nothing a shell reads otherwise (a terminal_cmd string's first word may be `VAR=x` or quoted).
func plainName(w string) bool {
	return w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") == ""
}

// hasFlag reports whether args (before a "--") hold flag, alone or as flag=value.
func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}
