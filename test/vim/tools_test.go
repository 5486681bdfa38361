package vimtest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/seltable"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// textJSON calls a tool and decodes the JSON of its first text block.
func textJSON(t *testing.T, c *probe.Client, tool string, args map[string]any, v any) {
	t.Helper()
	r, err := c.Tool(testbin.Ctx(t), tool, args)
	if err != nil || r.IsError || len(r.Content) == 0 {
		t.Fatalf("%s: %v %+v", tool, err, r)
	}
	if err := json.Unmarshal([]byte(r.Content[0].Text), v); err != nil {
		t.Fatalf("%v: %s", err, r.Content[0].Text)
	}
}

// openFile with startText/endText selects the range the bridge found; the Visual selection then
// reaches Claude. makeFrontmost false opens without taking focus and tells Claude the details.
func TestOpenFile(t *testing.T) {
	v := startVim(t)
	c := v.claude()
	path := v.file("a.txt", "one\ntwo\nthree\n")
	there := v.file("there.go", "package main\n\nfunc main() {}\n")
	if r, err := c.Tool(testbin.Ctx(t), "openFile", map[string]any{"filePath": path, "startText": "two", "endText": "three"}); err != nil || r.IsError {
		t.Fatalf("openFile: %v %+v", err, r)
	}
	waitSelection(t, v, c, seltable.Sel(path, "two\nthree", 1, 0, 2, 5))
	if got := v.str("expand('%:p')"); got != path {
		t.Fatalf("current buffer %q, want %q", got, path)
	}
	v.normal()
	var got map[string]any
	textJSON(t, c, "openFile", map[string]any{"filePath": there, "makeFrontmost": false}, &got)
	if got["success"] != true || got["lineCount"] != float64(3) || got["languageId"] != "go" {
		t.Fatalf("openFile result %v", got)
	}
	if cur := v.str("expand('%:p')"); cur != path {
		t.Fatalf("focus moved to %q", cur)
	}
	v.waitEval("1", "buflisted(bufnr('"+there+"'))")
}

func TestOpenEditorsDirtyAndSave(t *testing.T) {
	v := startVim(t)
	c := v.claude()
	a := v.file("a.txt", "a\n")
	b := v.file("b.txt", "b\n")
	v.ex("edit " + a + "\nedit " + b + "\ncall setline(1, 'b2')")
	var open struct {
		Tabs []struct {
			IsActive bool   `json:"isActive"`
			IsDirty  bool   `json:"isDirty"`
			Label    string `json:"label"`
		} `json:"tabs"`
	}
	textJSON(t, c, "getOpenEditors", map[string]any{}, &open)
	got := map[string][2]bool{}
	for _, tab := range open.Tabs {
		got[tab.Label] = [2]bool{tab.IsActive, tab.IsDirty}
	}
	if want := map[string][2]bool{"a.txt": {false, false}, "b.txt": {true, true}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("getOpenEditors %+v, want {active, dirty} %v", open.Tabs, want)
	}
	var dirty, notOpen, saved map[string]any
	textJSON(t, c, "checkDocumentDirty", map[string]any{"filePath": b}, &dirty)
	if dirty["success"] != true || dirty["isDirty"] != true {
		t.Fatalf("checkDocumentDirty %v", dirty)
	}
	textJSON(t, c, "checkDocumentDirty", map[string]any{"filePath": filepath.Join(v.ws, "none.txt")}, &notOpen)
	if notOpen["success"] != false {
		t.Fatalf("checkDocumentDirty of a file not open: %v", notOpen)
	}
	// a.txt is hidden (no window shows it): saved all the same.
	v.ex("buffer " + a + "\ncall setline(1, 'a2')\nbuffer " + b)
	for _, p := range []string{a, b} {
		textJSON(t, c, "saveDocument", map[string]any{"filePath": p}, &saved)
		if saved["success"] != true || saved["saved"] != true {
			t.Fatalf("saveDocument %s: %v", p, saved)
		}
	}
	if got := harness.FileText(a) + harness.FileText(b); got != "a2\nb2\n" {
		t.Fatalf("files after saveDocument: %q", got)
	}
	if n := v.str("string(winnr('$'))"); n != "1" {
		t.Fatalf("%s windows after saving a hidden buffer, want 1", n)
	}
}

// getWorkspaceFolders is Vim's cwd; :cd sends workspaceFoldersChanged (the lock file follows).
func TestWorkspaceFolders(t *testing.T) {
	v := startVim(t)
	c := v.claude()
	var got struct {
		Folders []struct {
			Path string `json:"path"`
		} `json:"folders"`
	}
	textJSON(t, c, "getWorkspaceFolders", map[string]any{}, &got)
	if len(got.Folders) != 1 || got.Folders[0].Path != v.ws {
		t.Fatalf("getWorkspaceFolders %+v, want %s", got, v.ws)
	}
	sub := filepath.Join(v.ws, "sub")
	os.Mkdir(sub, 0o755)
	v.ex("cd sub")
	lock := v.state().LockPath
	if !poll(func() bool {
		b, _ := os.ReadFile(lock)
		return strings.Contains(string(b), `"workspaceFolders":["`+sub+`"]`)
	}) {
		b, _ := os.ReadFile(lock)
		t.Fatalf("lock after :cd sub: %s", b)
	}
}

// With ALE (Debian's vim-ale) the plugin declares getDiagnostics and answers it from ALE's
// loclist: 1-based columns become 0-based, the end exclusive, type W a Warning.
func TestDiagnosticsFromALE(t *testing.T) {
	if _, err := os.Stat("/usr/share/vim-ale/plugin/ale.vim"); err != nil {
		harness.Missing(t, "vim-ale", "diagnostics from ALE")
	}
	v := startVim(t, "set rtp+=/usr/share/vim-ale", "let g:ale_enabled = 1", "let g:ale_linters_explicit = 1")
	c := v.claude()
	path := v.file("a b.txt", "one\ntwo\n")
	v.ex("edit " + strings.ReplaceAll(path, " ", `\ `))
	v.ex(`call ale#other_source#ShowResults(bufnr(''), 'lint', [{'lnum': 2, 'col': 2, 'end_col': 3, 'text': 'w', 'type': 'W', 'code': 'W1'}, {'lnum': 1, 'col': 1, 'text': 'e', 'type': 'E'}])`)
	var got []struct {
		URI         string `json:"uri"`
		Diagnostics []struct {
			Message  string                   `json:"message"`
			Severity string                   `json:"severity"`
			Range    struct{ Start, End pos } `json:"range"`
			Source   string                   `json:"source"`
			Code     string                   `json:"code"`
		} `json:"diagnostics"`
	}
	uri := "file://" + path
	textJSON(t, c, "getDiagnostics", map[string]any{"uri": uri}, &got)
	if len(got) != 1 || got[0].URI != uri || len(got[0].Diagnostics) != 2 {
		t.Fatalf("getDiagnostics %+v", got)
	}
	for _, d := range got[0].Diagnostics {
		if d.Message == "w" && (d.Severity != "Warning" || d.Range.Start != (pos{Line: 1, Character: 1}) || d.Range.End != (pos{Line: 1, Character: 3}) || d.Source != "lint" || d.Code != "W1") {
			t.Fatalf("warning %+v", d)
		}
		if d.Message == "e" && (d.Severity != "Error" || d.Range.Start != (pos{Line: 0, Character: 0})) {
			t.Fatalf("error %+v", d)
		}
	}
}

// :ClaudeCode runs terminal_cmd in Vim's :terminal with the bridge's environment, the code
// tools' --mcp-config, and --permission-mode default unless the user chose a mode (the Neovim
// plugin's rule: the newest CLI starts in auto mode, where no edit reaches a diff).
func TestTerminalCommand(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     string
		settings string // the workspace's .claude/settings.json
		want     []string
	}{
		{"default mode added", "", "", []string{"--permission-mode", "default"}},
		{"user's mode kept", "--permission-mode plan", "", []string{"--permission-mode", "plan"}},
		{"settings' mode kept", "", `{"permissions": {"defaultMode": "acceptEdits"}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			script := `printf '%s\n' "$@" > ` + out + `.args; env > ` + out + `.env; exec sleep 60`
			v := startVim(t, "let g:claude_ide_bridge_terminal_cmd = ['/bin/sh', '-c', "+vimString(script)+", 'claude']")
			v.waitEval("true", "claude_ide_bridge#State().ready")
			if tc.settings != "" {
				os.MkdirAll(filepath.Join(v.ws, ".claude"), 0o755)
				os.WriteFile(filepath.Join(v.ws, ".claude", "settings.json"), []byte(tc.settings), 0o644)
			}
			v.ex("ClaudeCode " + tc.args)
			t.Cleanup(func() { v.tryEval("execute('ClaudeCodeClose')") })
			v.waitEval(`"terminal"`, "&buftype")
			var args, env []byte
			if !poll(func() bool { env, _ = os.ReadFile(out + ".env"); return len(env) > 0 }) {
				t.Fatalf("the terminal command did not run; screen:\n%s", v.screen())
			}
			args, _ = os.ReadFile(out + ".args")
			s := v.state()
			var info map[string]any
			v.evalInto(&info, "claude_ide_bridge#State()")
			lines := strings.Fields(string(args))
			if n := strings.Count(string(args), "--permission-mode"); n != len(tc.want)/2 || !strings.Contains(string(args), strings.Join(tc.want, "\n")) {
				t.Errorf("claude's arguments %q, want %q once", lines, tc.want)
			}
			if tc.settings != "" && !strings.Contains(v.messages(), "permission mode acceptEdits") {
				t.Errorf("no warning that edits skip the diff:\n%s", v.messages())
			}
			if !strings.Contains(string(args), "--mcp-config\n"+info["mcpConfig"].(string)+"\n") {
				t.Errorf("claude's arguments %q have no --mcp-config %v", lines, info["mcpConfig"])
			}
			for _, want := range []string{"CLAUDE_CODE_SSE_PORT=" + itoa(s.Port), "ENABLE_IDE_INTEGRATION=true", "NO_PROXY=127.0.0.1,localhost,::1"} {
				if !strings.Contains(string(env), want+"\n") {
					t.Errorf("claude's environment has no %s", want)
				}
			}
			// :ClaudeCode in the terminal window hides it; claude keeps running.
			v.ex("ClaudeCode")
			v.waitEval(`""`, "&buftype")
			v.waitEval("true", "claude_ide_bridge#State().terminal")
		})
	}
}

// The claude :ClaudeCode starts is the bridge's claudeCommand answer: a bridge built with that
// Go rule changed (testbin.ChangedRule) gets its changed argv, environment and notice into Vim's
// terminal, for a List terminal_cmd and a String one (a shell command line).
func TestTerminalFollowsTheBridgesRule(t *testing.T) {
	bin := testbin.ChangedRule(t)
	for _, tc := range []struct{ name, cmd string }{
		{"list", "['/bin/sh', '-c', %s, 'claude']"},
		{"string", "'/bin/sh -c ' .. shellescape(%s) .. ' claude'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			script := `{ printf '%s\n' "$@"; echo "no_proxy=$no_proxy"; } > ` + out + `.tmp && mv ` + out + `.tmp ` + out + `; exec sleep 60`
			v := startVim(t, "let g:claude_ide_bridge_bin = '"+bin+"'", "let g:claude_ide_bridge_model_tools = 0",
				"let g:claude_ide_bridge_terminal_cmd = "+fmt.Sprintf(tc.cmd, vimString(script)))
			v.waitEval("true", "claude_ide_bridge#State().ready")
			v.ex("ClaudeCode --resume")
			t.Cleanup(func() { v.tryEval("execute('ClaudeCodeClose')") })
			var got []byte
			if !poll(func() bool { got, _ = os.ReadFile(out); return len(got) > 0 }) {
				t.Fatalf("the terminal command did not run; messages:\n%s", v.messages())
			}
			hooks := filepath.Join(v.cfg, "ide", itoa(v.state().Port)+".settings.json")
			want := "--permission-mode\ndefault\n--settings\n" + hooks + "\n" + testbin.ChangedArg + "\n--resume\nno_proxy=" + testbin.ChangedNoProxy + "\n"
			if string(got) != want {
				t.Errorf("the CLI got\n%s\nwant\n%s", got, want)
			}
			if !strings.Contains(v.messages(), testbin.ChangedNotice) {
				t.Errorf("the bridge's notice was not shown:\n%s", v.messages())
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// g:claude_ide_bridge_terminal 'external': external_cmd runs with %s replaced by claude's command
// line, `env` and the bridge's variables first (here the "terminal" is a plain shell).
func TestExternalTerminal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	script := `env > ` + out + `.env`
	v := startVim(t, "let g:claude_ide_bridge_terminal = 'external'", "let g:claude_ide_bridge_external_cmd = '%s'",
		"let g:claude_ide_bridge_terminal_cmd = ['/bin/sh', '-c', "+vimString(script)+"]")
	v.waitEval("true", "claude_ide_bridge#State().ready")
	v.ex("ClaudeCode")
	var env []byte
	if !poll(func() bool { env, _ = os.ReadFile(out + ".env"); return len(env) > 0 }) {
		t.Fatalf("the external command did not run; messages:\n%s", v.messages())
	}
	if want := "CLAUDE_CODE_SSE_PORT=" + itoa(v.state().Port) + "\n"; !strings.Contains(string(env), want) {
		t.Errorf("claude's environment has no %s", want)
	}
	if got := v.str("&buftype"); got != "" {
		t.Errorf("a terminal window opened (&buftype %q)", got)
	}
}

// Without ALE, vim-lsp or yegappan the plugin declares no getDiagnostics and starts the bridge
// with --lsp: the bridge's own language server (gopls here) answers, and only in a folder
// trusted with :ClaudeCodeTrust (untrusted: no diagnostics; :ClaudeCodeTrust! revokes).
func TestDiagnosticsFromBridgeServers(t *testing.T) {
	gopls := harness.Gopls(t)
	// The bridge (and its gopls) runs under Vim's HOME: the go command's caches stay warm.
	v := startVimEnv(t, harness.GoEnv(t), "let g:claude_ide_bridge_lsp = ['.go="+gopls+"']", "let g:claude_ide_bridge_auto_start = 0")
	v.file("go.mod", "module example.com/m\n\ngo 1.21\n")
	path := v.file("main.go", "package main\n\nfunc main() {\n\tundefinedThing()\n}\n")
	check := func(dir string) bool {
		cmd := exec.Command(bridgeBin, "trust", "--check", dir)
		cmd.Env = []string{"HOME=" + v.home, "PATH=" + os.Getenv("PATH")} // Vim's trust store
		return cmd.Run() == nil
	}
	v.ex("ClaudeCodeTrust")
	if !check(v.ws) {
		t.Fatalf("%s is not trusted after :ClaudeCodeTrust; messages:\n%s", v.ws, v.messages())
	}
	v.ex("ClaudeCodeStart")
	c := v.claude()
	v.ex("edit " + path)
	var got []struct {
		Diagnostics []struct {
			Message string `json:"message"`
		} `json:"diagnostics"`
	}
	if !harness.Poll(60*time.Second, func() bool {
		textJSON(t, c, "getDiagnostics", map[string]any{"uri": "file://" + path}, &got)
		return len(got) == 1 && len(got[0].Diagnostics) > 0
	}) {
		t.Fatalf("no diagnostics from gopls: %+v", got)
	}
	if !strings.Contains(got[0].Diagnostics[0].Message, "undefinedThing") {
		t.Errorf("diagnostic %q", got[0].Diagnostics[0].Message)
	}
	v.ex("ClaudeCodeTrust!")
	if check(v.ws) {
		t.Fatalf("%s is still trusted after :ClaudeCodeTrust!", v.ws)
	}
}

// Issue 39 item 4: a Claude whose mode writes Edit/Write without a diff (its calls: getDiagnostics
// {uri}, the file written, no openDiff) is told to the user once, as a message.
func TestDiffsSkippedMessage(t *testing.T) {
	v := startVim(t)
	c := v.claude()
	path := v.file("a.txt", "one\n")
	for _, text := range []string{"two\n", "three\n"} {
		if _, err := c.Tool(testbin.Ctx(t), "getDiagnostics", map[string]any{"uri": "file://" + path}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Tool(testbin.Ctx(t), "getDiagnostics", map[string]any{}); err != nil {
			t.Fatal(err)
		}
	}
	want := "claude-ide-bridge: Claude wrote a.txt without showing a diff"
	if !harness.Poll(10*time.Second, func() bool { return strings.Contains(v.messages(), want) }) {
		t.Fatalf("no message %q:\n%s", want, v.messages())
	}
	if n := strings.Count(v.messages(), want); n != 1 {
		t.Errorf("%d messages, want 1:\n%s", n, v.messages())
	}
}
