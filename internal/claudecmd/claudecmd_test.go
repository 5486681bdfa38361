package claudecmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// project is a workspace folder with a fresh home and config dir: no settings choose a mode
// unless mode is given (written to the project's .claude/settings.local.json).
func project(t *testing.T, mode string) Bridge {
	d := t.TempDir()
	t.Setenv("HOME", filepath.Join(d, "home"))
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(d, "config"))
	cwd := filepath.Join(d, "proj")
	os.MkdirAll(filepath.Join(cwd, ".claude"), 0o755)
	if mode != "" {
		os.WriteFile(filepath.Join(cwd, ".claude", "settings.local.json"), []byte(`{"permissions":{"defaultMode":"`+mode+`"}}`), 0o644)
	}
	return Bridge{Env: map[string]string{"CLAUDE_CODE_SSE_PORT": "4242"}, Cwd: cwd, Hooks: "/h/4242.settings.json", MCPConfig: "/h/it's.mcp.json"}
}

func TestCompose(t *testing.T) {
	no := false
	for _, tc := range []struct {
		name     string
		settings string
		r        Request
		argv     []string
		mode     string
		why      string
		notice   bool
	}{
		{name: "nothing chosen", r: Request{Args: []string{"--resume"}},
			argv: []string{"claude", "--permission-mode", "default", "--settings", "/h/4242.settings.json", "--mcp-config", "/h/it's.mcp.json", "--resume"},
			mode: "default", why: "claude-ide-bridge adds --permission-mode default"},
		{name: "settings choose", settings: "acceptEdits", r: Request{ModelTools: &no},
			argv: []string{"claude", "--settings", "/h/4242.settings.json"}, mode: "acceptEdits", why: "set by ", notice: true},
		{name: "user's mode", settings: "auto", r: Request{PermissionMode: "plan", Command: []string{"npx", "claude"}},
			argv: []string{"npx", "claude", "--permission-mode", "plan", "--settings", "/h/4242.settings.json", "--mcp-config", "/h/it's.mcp.json"}, mode: "plan", why: "set by the command line"},
		{name: "flag in the command", r: Request{Command: []string{"claude", "--dangerously-skip-permissions"}, ModelTools: &no},
			argv: []string{"claude", "--dangerously-skip-permissions", "--settings", "/h/4242.settings.json"}, mode: "bypassPermissions", why: "set by the command line"},
		{name: "nothing wanted", r: Request{PermissionMode: Off, ModelTools: &no},
			argv: []string{"claude"}, mode: "", why: "no flag added"},
		{name: "user's --settings", r: Request{Args: []string{"--settings=mine.json"}, ModelTools: &no},
			argv: []string{"claude", "--permission-mode", "default", "--settings=mine.json"}, mode: "default", why: "claude-ide-bridge adds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := project(t, tc.settings)
			c := Compose(tc.r, b)
			if !reflect.DeepEqual(c.Argv, tc.argv) {
				t.Errorf("argv %q, want %q", c.Argv, tc.argv)
			}
			if c.PermissionMode != tc.mode || !strings.HasPrefix(c.Why, tc.why) || (c.Notice != "") != tc.notice {
				t.Errorf("mode %q why %q notice %q; want %q, %q..., notice %v", c.PermissionMode, c.Why, c.Notice, tc.mode, tc.why, tc.notice)
			}
			if tc.notice && !strings.Contains(c.Notice, "permission mode "+tc.settings+" (set by "+filepath.Join(b.Cwd, ".claude", "settings.local.json")+")") {
				t.Errorf("notice %q names neither the mode nor the file", c.Notice)
			}
			if !reflect.DeepEqual(c.Env, b.Env) {
				t.Errorf("env %v", c.Env)
			}
		})
	}
}

// Display is the argv a POSIX shell reads back word for word.
func TestDisplayQuotes(t *testing.T) {
	c := Compose(Request{Args: []string{"fix $HOME; it's"}}, project(t, ""))
	want := `claude --permission-mode default --settings /h/4242.settings.json --mcp-config '/h/it'\''s.mcp.json' 'fix $HOME; it'\''s'`
	if c.Display != want {
		t.Errorf("display %s\nwant    %s", c.Display, want)
	}
	if c.Shell != "CLAUDE_CODE_SSE_PORT=4242 "+want {
		t.Errorf("shell %s", c.Shell)
	}
}

// permissionMode is a mode, false (no flag) or absent; anything else is refused naming it.
func TestRequestDecodes(t *testing.T) {
	for params, want := range map[string]Mode{`{"permissionMode": false}`: Off, `{"permissionMode": "plan"}`: "plan", `{}`: "", `{"permissionMode": null}`: ""} {
		var r Request
		if err := jsonrpc.UnmarshalParams([]byte(params), &r); err != nil || r.PermissionMode != want {
			t.Errorf("%s: %q %v, want %q", params, r.PermissionMode, err, want)
		}
	}
	var r Request
	if err := jsonrpc.UnmarshalParams([]byte(`{"permissionMode": true}`), &r); err == nil || !strings.Contains(err.Error(), "permissionMode") {
		t.Errorf("true: %v", err)
	}
}
