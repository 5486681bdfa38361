// Package permmode decides the permission mode the Claude Code CLI starts in, and whether the
// bridge should add `--permission-mode default` to the command line it starts or prints.
//
// Why: the CLI (2.1.328) starts in auto mode on a fresh config, and in auto (and acceptEdits,
// dontAsk, bypassPermissions) it writes Edit and Write itself: openDiff is never called and no
// diff reaches the editor (../shared/claude-cli-facts.md, "Permission modes and hooks"). So
// the bridge's own command lines ask for the default (manual) mode, unless the user chose a
// mode: a permission flag in the arguments, or permissions.defaultMode in a settings file in
// force. This package is the one place that rule lives; :ClaudeCode, Nova's command, serve's
// printed command and doctor all ask it (the editors through the editor protocol).
package permmode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// The CLI's modes (--permission-mode).
const (
	Default           = "default"
	AcceptEdits       = "acceptEdits"
	Plan              = "plan"
	Auto              = "auto"
	DontAsk           = "dontAsk"
	BypassPermissions = "bypassPermissions"
)

// Modes lists every mode --permission-mode accepts.
var Modes = []string{Default, AcceptEdits, Plan, Auto, DontAsk, BypassPermissions}

// SkipsDiffs reports whether the CLI in mode writes Edit and Write without asking, so that no
// diff is shown in the editor. An empty mode is the CLI's own default: auto.
func SkipsDiffs(mode string) bool {
	switch mode {
	case Default, Plan:
		return false
	case AcceptEdits, Auto, DontAsk, BypassPermissions, "":
		return true
	}
	return false // unknown: the CLI refuses it at start
}

// Env is where the CLI would look for settings.
type Env struct {
	Cwd       string // where claude starts: the project's .claude/ is read there
	Home      string // $HOME
	ConfigDir string // $CLAUDE_CONFIG_DIR ("": Home/.claude)
	Managed   string // the managed settings file ("": ManagedSettings)
}

// ManagedSettings is the administrator's settings file on Linux; it overrides every other.
const ManagedSettings = "/etc/claude-code/managed-settings.json"

// FromOS is the Env of a claude started in cwd by this process's user.
func FromOS(cwd string) Env {
	home, _ := os.UserHomeDir()
	return Env{Cwd: cwd, Home: home, ConfigDir: os.Getenv("CLAUDE_CONFIG_DIR")}
}

// Decision is what Decide found.
type Decision struct {
	// Mode is the mode claude starts in; "" when nothing sets one and nothing is added (the
	// CLI's default, auto).
	Mode string `json:"mode"`
	// Source says who chose Mode: "arguments", a settings file's path, or "claude-ide-bridge"
	// when Add holds the mode the bridge adds.
	Source string `json:"source"`
	// Add is what to put on the command line: ["--permission-mode", "default"] or nothing.
	Add []string `json:"add"`
	// SkipsDiffs: with Mode, Edit and Write are written without a diff in the editor.
	SkipsDiffs bool `json:"skipsDiffs"`
	// Problems are settings files that could not be read (the CLI reports them too).
	Problems []string `json:"problems,omitempty"`
}

// Warning is one plain sentence for doctor, :checkhealth and serve when d skips diffs, else "".
func (d Decision) Warning() string {
	if !d.SkipsDiffs {
		return ""
	}
	who := "the command line"
	if d.Source != "arguments" {
		who = d.Source
	}
	return fmt.Sprintf("permission mode %s (set by %s): Claude writes its edits without showing them as diffs in the editor; "+
		"start claude with --permission-mode default, or remove permissions.defaultMode there, to review each edit", d.Mode, who)
}

// Decide applies the rule to the CLI arguments the user gave (not counting what the bridge
// adds) and the settings files of e: a permission flag in args wins, then
// permissions.defaultMode in the settings in force (managed, then --settings, then the
// project's .claude/settings.local.json, its .claude/settings.json, the user's settings.json);
// with neither, the bridge adds --permission-mode default.
func Decide(args []string, e Env) Decision {
	if mode, ok := FromArgs(args); ok {
		return Decision{Mode: mode, Source: "arguments", SkipsDiffs: SkipsDiffs(mode)}
	}
	var d Decision
	for _, f := range settingsFiles(args, e) {
		mode, err := f.mode()
		if err != nil {
			d.Problems = append(d.Problems, err.Error())
			continue
		}
		if mode != "" {
			d.Mode, d.Source, d.SkipsDiffs = mode, f.name, SkipsDiffs(mode)
			return d
		}
	}
	d.Mode, d.Source, d.Add = Default, "claude-ide-bridge", []string{"--permission-mode", Default}
	return d
}

// FromArgs returns the mode a permission flag in args sets: --permission-mode MODE (or =MODE),
// or --dangerously-skip-permissions (bypassPermissions). Arguments after "--" are the prompt.
func FromArgs(args []string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return "", false
		case a == "--permission-mode":
			if i+1 < len(args) {
				return args[i+1], true
			}
			return "", true // the CLI refuses it; adding ours would only hide that
		case strings.HasPrefix(a, "--permission-mode="):
			return strings.TrimPrefix(a, "--permission-mode="), true
		case a == "--dangerously-skip-permissions":
			return BypassPermissions, true
		}
	}
	return "", false
}

// maxSettings bounds a settings file's read; the CLI's own are a few KiB.
const maxSettings = 1 << 20

type settingsFile struct {
	name string // shown to the user
	path string // "" when data holds inline JSON
	data []byte
}

func (f settingsFile) mode() (string, error) {
	data := f.data
	if f.path != "" {
		var err error
		// A project's settings come from the repository: a symlink to /dev/zero or a FIFO
		// must not hang or fill :ClaudeCode, doctor or serve (userfile reads regular files
		// only, bounded).
		data, err = userfile.Read(f.path, maxSettings)
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("%s: %v", f.name, err)
		}
	}
	var s struct {
		Permissions struct {
			DefaultMode string `json:"defaultMode"`
		} `json:"permissions"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return "", fmt.Errorf("%s: not valid JSON: %v", f.name, err)
	}
	return s.Permissions.DefaultMode, nil
}

// settingsFiles are the settings the CLI reads, highest precedence first.
func settingsFiles(args []string, e Env) []settingsFile {
	managed := e.Managed
	if managed == "" {
		managed = ManagedSettings
	}
	out := []settingsFile{{name: managed, path: managed}}
	for i := 0; i < len(args); i++ {
		if args[i] == "--" || (args[i] == "--settings" && i+1 == len(args)) {
			break
		}
		v, ok := "", false
		switch {
		case args[i] == "--settings":
			v, ok = args[i+1], true
		case strings.HasPrefix(args[i], "--settings="):
			v, ok = strings.TrimPrefix(args[i], "--settings="), true
		}
		if ok {
			if strings.HasPrefix(strings.TrimSpace(v), "{") {
				out = append(out, settingsFile{name: "--settings", data: []byte(v)})
			} else {
				p := v
				if !filepath.IsAbs(p) && e.Cwd != "" {
					p = filepath.Join(e.Cwd, p)
				}
				out = append(out, settingsFile{name: p, path: p})
			}
		}
	}
	if e.Cwd != "" {
		for _, n := range []string{"settings.local.json", "settings.json"} {
			p := filepath.Join(e.Cwd, ".claude", n)
			out = append(out, settingsFile{name: p, path: p})
		}
	}
	dir := e.ConfigDir
	if dir == "" && e.Home != "" {
		dir = filepath.Join(e.Home, ".claude")
	}
	if dir != "" {
		p := filepath.Join(dir, "settings.json")
		out = append(out, settingsFile{name: p, path: p})
	}
	return out
}
