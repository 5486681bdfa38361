package nvimtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permmode"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// Issue 26 item 1: :ClaudeCode starts the CLI with --permission-mode default (the CLI's own
// default, auto mode, writes Edit/Write without calling openDiff: facts, "Permission modes"),
// unless the user chose a mode: a flag in terminal_cmd or :ClaudeCode's arguments, the
// permission_mode option, or permissions.defaultMode in the Claude settings in force. The
// rule is the bridge's (internal/permmode); the plugin asks it.
func TestClaudeCodePermissionMode(t *testing.T) {
	out := filepath.Join(t.TempDir(), "args")
	script := `printf '%s\n' "$@" > ` + out + `.tmp && mv ` + out + `.tmp ` + out + `; exec cat`
	for _, tc := range []struct {
		name     string
		opts     map[string]any
		settings string // CLAUDE_CONFIG_DIR/settings.json
		project  string // the project's .claude/settings.local.json
		args     string // :ClaudeCode's
		want     string
	}{
		{name: "nothing chosen", want: "--permission-mode\ndefault\n--resume\n", args: " --resume"},
		{name: "user settings choose", settings: "acceptEdits", want: "--resume\n", args: " --resume"},
		{name: "project settings choose", project: "auto", want: ""},
		{name: "flag in the arguments", args: " --permission-mode plan", want: "--permission-mode\nplan\n"},
		{name: "flag in terminal_cmd", opts: map[string]any{"terminal_cmd": []string{"sh", "-c", script, "sh", "--dangerously-skip-permissions"}}, want: "--dangerously-skip-permissions\n"},
		{name: "option", opts: map[string]any{"permission_mode": "auto"}, settings: "default", want: "--permission-mode\nauto\n"},
		{name: "option false", opts: map[string]any{"permission_mode": false}, want: "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(out)
			opts := map[string]any{"terminal_cmd": []string{"sh", "-c", script, "sh"}, "model_tools": false}
			for k, v := range tc.opts {
				opts[k] = v
			}
			e := newEnvBefore(t, opts, func(e *env) {
				if tc.settings != "" {
					os.WriteFile(filepath.Join(e.cfg, "settings.json"), []byte(`{"permissions":{"defaultMode":"`+tc.settings+`"}}`), 0o600)
				}
				if tc.project != "" {
					os.MkdirAll(filepath.Join(e.proj, ".claude"), 0o755)
					os.WriteFile(filepath.Join(e.proj, ".claude", "settings.local.json"), []byte(`{"permissions":{"defaultMode":"`+tc.project+`"}}`), 0o644)
				}
			})
			e.n.ex(t, "ClaudeCode"+tc.args)
			waitFor(t, "the CLI's arguments", func() bool { _, err := os.Stat(out); return err == nil })
			// The bridge's hooks come with every claude it starts unless the user gives a
			// --settings (docs/review.md); they are not a permission flag.
			got := harness.FileText(out)
			port, _ := readLock(t, e.cfg)
			hooks := "--settings\n" + filepath.Join(e.cfg, "ide", itoa(port)+".settings.json") + "\n"
			if tc.opts["permission_mode"] != false && !strings.Contains(got, hooks) {
				t.Errorf("the CLI got %q, without the bridge's hooks %q", got, hooks)
			}
			if got = strings.Replace(got, hooks, "", 1); got != tc.want {
				t.Fatalf("the CLI got %q, want %q", got, tc.want)
			}
			e.n.ex(t, "ClaudeCodeClose")
		})
	}
}

// :checkhealth says plainly when the settings in force skip the diffs, and that they do not
// otherwise.
func TestCheckhealthPermissionMode(t *testing.T) {
	health := func(e *env) string {
		e.n.ex(t, "checkhealth claude-ide-bridge")
		return e.n.str(t, `return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")`)
	}
	cat := map[string]any{"terminal_cmd": []string{"cat"}} // a program on $PATH: claude may not be
	e := newEnv(t, cat, false)
	if text := health(e); !strings.Contains(text, "permission mode default (claude-ide-bridge adds --permission-mode default): each Edit/Write is shown as a diff") {
		t.Errorf("checkhealth with no mode chosen:\n%s", text)
	}
	e2 := newEnvBefore(t, cat, func(e *env) {
		os.WriteFile(filepath.Join(e.cfg, "settings.json"), []byte(`{"permissions":{"defaultMode":"auto"}}`), 0o600)
	})
	if text := health(e2); !strings.Contains(text, "permission mode auto (set by "+filepath.Join(e2.cfg, "settings.json")+"): Claude writes its edits without showing them as diffs") {
		t.Errorf("checkhealth with auto in the settings:\n%s", text)
	}
}

// The claude :ClaudeCode starts is the bridge's claudeCommand answer, word for word and
// variable for variable: a bridge built with that Go rule changed (testbin.ChangedRule) gets
// its changed argv, environment and notice into the terminal, for a list terminal_cmd and a
// string one (a shell line).
func TestClaudeCodeFollowsTheBridgesRule(t *testing.T) {
	bin := testbin.ChangedRule(t)
	out := filepath.Join(t.TempDir(), "claude")
	script := `{ printf '%s\n' "$@"; echo "no_proxy=$no_proxy"; } > ` + out + `.tmp && mv ` + out + `.tmp ` + out + `; exec cat`
	for _, tc := range []struct {
		name string
		cmd  any
	}{
		{"list", []string{"sh", "-c", script, "sh"}},
		{"string", "sh -c '" + strings.ReplaceAll(script, "'", `'\''`) + "' sh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(out)
			e := newEnv(t, map[string]any{"bin": bin, "terminal_cmd": tc.cmd, "model_tools": false}, false)
			e.n.ex(t, "ClaudeCode --resume")
			waitFor(t, "the CLI's arguments", func() bool { _, err := os.Stat(out); return err == nil })
			port, _ := readLock(t, e.cfg)
			hooks := filepath.Join(e.cfg, "ide", itoa(port)+".settings.json")
			want := "--permission-mode\ndefault\n--settings\n" + hooks + "\n" + testbin.ChangedArg + "\n--resume\nno_proxy=" + testbin.ChangedNoProxy + "\n"
			if got := harness.FileText(out); got != want {
				t.Errorf("the CLI got\n%s\nwant\n%s", got, want)
			}
			e.waitNotice(t, testbin.ChangedNotice)
			e.n.ex(t, "ClaudeCodeClose")
		})
	}
}

// The CLI's modes are listed once, in internal/permmode.Modes; the plugin's copies (the
// permission_mode option's rule, its LuaCATS type and the help's list) are kept equal to it here.
func TestPermissionModesAreTheBridges(t *testing.T) {
	want := strings.Join(permmode.Modes, ", ")
	n := startNvim(t, t.TempDir())
	var got struct {
		Msg      string `json:"msg"`
		Accepted []bool `json:"accepted"`
	}
	n.luaInto(t, &got, `local modes = ...
		for _, opt in ipairs(require("claude-ide-bridge.config").OPTIONS) do
			if opt[1] == "permission_mode" then
				local accepted = {}
				for i, m in ipairs(modes) do accepted[i] = opt[3](m) end
				return { msg = opt[4], accepted = accepted }
			end
		end
		return { msg = "no permission_mode option", accepted = {} }`, permmode.Modes)
	if got.Msg != "false or one of "+want {
		t.Errorf("the permission_mode option says %q, want the bridge's modes: false or one of %s", got.Msg, want)
	}
	for i, m := range permmode.Modes {
		if i >= len(got.Accepted) || !got.Accepted[i] {
			t.Errorf("the permission_mode option refuses %q, one of the bridge's modes", m)
		}
	}

	// words is the quoted words of re's first group in src.
	words := func(re string, src []byte) string {
		m := regexp.MustCompile(re).FindSubmatch(src)
		if m == nil {
			return "nothing"
		}
		var out []string
		for _, w := range regexp.MustCompile(`"(\w+)"`).FindAllSubmatch(m[1], -1) {
			out = append(out, string(w[1]))
		}
		return strings.Join(out, ", ")
	}
	src, err := os.ReadFile(filepath.Join(pluginDir, "lua", "claude-ide-bridge", "config.lua"))
	if err != nil {
		t.Fatal(err)
	}
	if got := words(`---@field permission_mode\? (\S+)`, src); got != want {
		t.Errorf("config.lua's ---@field permission_mode lists %s, want the bridge's modes: %s", got, want)
	}
	help, err := os.ReadFile(filepath.Join(pluginDir, "doc", "claude-ide-bridge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := words("the option `permission_mode` \\(([^;]*);", help); got != want {
		t.Errorf("the help lists %s for the option permission_mode, want the bridge's modes: %s", got, want)
	}
}
