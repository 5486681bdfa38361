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
	return Bridge{Env: map[string]string{"CLAUDE_CODE_SSE_PORT": "4242"}, Cwd: cwd, Folders: []string{cwd}, Hooks: "/h/4242.settings.json", MCPConfig: "/h/it's.mcp.json"}
}

// programs puts executable scripts of these names in a fresh folder first on $PATH; it returns
// the folder.
func programs(t *testing.T, names ...string) string {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// compose is Compose that fails the test on an error.
func compose(t *testing.T, r Request, b Bridge) Command {
	t.Helper()
	c, err := Compose(r, b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCompose(t *testing.T) {
	bin := programs(t, "claude", "npx")
	claude, npx := filepath.Join(bin, "claude"), filepath.Join(bin, "npx")
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
			argv: []string{claude, "--permission-mode", "default", "--settings", "/h/4242.settings.json", "--mcp-config", "/h/it's.mcp.json", "--resume"},
			mode: "default", why: "claude-ide-bridge adds --permission-mode default"},
		{name: "settings choose", settings: "acceptEdits", r: Request{ModelTools: &no},
			argv: []string{claude, "--settings", "/h/4242.settings.json"}, mode: "acceptEdits", why: "set by ", notice: true},
		{name: "user's mode", settings: "auto", r: Request{PermissionMode: "plan", Command: []string{"npx", "claude"}},
			argv: []string{npx, "claude", "--permission-mode", "plan", "--settings", "/h/4242.settings.json", "--mcp-config", "/h/it's.mcp.json"}, mode: "plan", why: "set by the command line"},
		{name: "flag in the command", r: Request{Command: []string{"claude", "--dangerously-skip-permissions"}, ModelTools: &no},
			argv: []string{claude, "--dangerously-skip-permissions", "--settings", "/h/4242.settings.json"}, mode: "bypassPermissions", why: "set by the command line"},
		{name: "nothing wanted", r: Request{PermissionMode: Off, ModelTools: &no},
			argv: []string{claude}, mode: "", why: "no flag added"},
		{name: "user's --settings", r: Request{Args: []string{"--settings=mine.json"}, ModelTools: &no},
			argv: []string{claude, "--permission-mode", "default", "--settings=mine.json"}, mode: "default", why: "claude-ide-bridge adds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := project(t, tc.settings)
			c := compose(t, tc.r, b)
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
	bin := programs(t, "claude")
	c := compose(t, Request{Args: []string{"fix $HOME; it's"}}, project(t, ""))
	want := bin + `/claude --permission-mode default --settings /h/4242.settings.json --mcp-config '/h/it'\''s.mcp.json' 'fix $HOME; it'\''s'`
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

// Issue 35 item 1: claude's program is never the workspace's. With a workspace folder's bin
// first on $PATH (direnv's PATH_add bin) and a `claude` the model wrote there, the one outside
// is chosen; with only the workspace's (or a relative entry's), none is, and the error says so.
// A remote argv, a path and a shell word are not looked up here.
func TestClaudeProgramNeverTheWorkspaces(t *testing.T) {
	b := project(t, "")
	other := t.TempDir()
	b.Folders = append(b.Folders, other)
	for _, dir := range []string{filepath.Join(b.Cwd, "bin"), filepath.Join(other, "bin")} {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "claude"), []byte("#!/bin/sh\n"), 0o755)
	}
	t.Chdir(b.Cwd)
	inside := strings.Join([]string{filepath.Join(b.Cwd, "bin"), filepath.Join(other, "bin"), "bin", "."}, string(os.PathListSeparator))
	outside := programs(t, "claude")
	t.Setenv("PATH", inside+string(os.PathListSeparator)+outside)
	if c := compose(t, Request{}, b); c.Argv[0] != filepath.Join(outside, "claude") || !strings.HasPrefix(c.Display, outside+"/claude ") {
		t.Errorf("argv %q display %q, want the claude outside the workspace", c.Argv, c.Display)
	}
	t.Setenv("PATH", inside)
	c, err := Compose(Request{}, b)
	if want := "claude: not found on $PATH outside the workspace (relative entries and entries inside the workspace are not searched)"; err == nil || err.Error() != want {
		t.Errorf("only the workspace's claude: %q %v, want the error %q", c.Argv, err, want)
	}
	for _, r := range []Request{{Remote: true}, {Command: []string{"/opt/claude/bin/claude"}}, {Command: []string{"CLAUDE_X=1", "claude"}}} {
		want := append([]string{}, r.Command...)
		if len(want) == 0 {
			want = []string{"claude"}
		}
		if c := compose(t, r, b); !reflect.DeepEqual(c.Argv[:len(want)], want) {
			t.Errorf("%+v: argv %q, want it to start %q as given", r, c.Argv, want)
		}
	}
}

// An agent's command line: its program found outside the workspace only (a gemini in the
// workspace is refused, the error saying what to install), a remote's left as named, the user's command kept, nothing of
// Claude's; Qwen not served says how Qwen gets set up.
func TestComposeAgent(t *testing.T) {
	b := project(t, "")
	b.Agents = map[string]int{"gemini": 5151}
	os.MkdirAll(filepath.Join(b.Cwd, "bin"), 0o755)
	os.WriteFile(filepath.Join(b.Cwd, "bin", "gemini"), []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", filepath.Join(b.Cwd, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	// Not found: the error says what to install (serve's banner and :ClaudeCodeAgent show it).
	if _, err := Compose(Request{Agent: "gemini"}, b); err == nil || !strings.Contains(err.Error(), "gemini: not found on $PATH outside the workspace") ||
		!strings.HasSuffix(err.Error(), "; to install Gemini CLI: npm install -g @google/gemini-cli") {
		t.Errorf("a gemini only in the workspace: %v", err)
	}
	c, err := Compose(Request{Agent: "gemini", Remote: true, Command: []string{"gemini", "-m", "x"}, Args: []string{"--yolo"}, PermissionMode: "plan"}, b)
	if err != nil || strings.Join(c.Argv, " ") != "gemini -m x --yolo" || c.Shell != "GEMINI_CLI_IDE_SERVER_PORT=5151 gemini -m x --yolo" || c.PermissionMode != "" {
		t.Errorf("remote gemini: %+v %v", c, err)
	}
	if _, err := Compose(Request{Agent: "qwen", Remote: true}, b); err == nil || !strings.Contains(err.Error(), "does not serve Qwen Code") || !strings.Contains(err.Error(), "$QWEN_HOME") {
		t.Errorf("qwen not served: %v", err)
	}
}
