package stdio_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

func TestInitialize(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		r := s.initialize(t, nil)

		// "When the result arrives the WebSocket is listening and the lock file exists."
		if r.Port <= 0 || r.IDEName != "Scripted" || r.Version == "" {
			t.Errorf("result = %+v", r)
		}
		if want := filepath.Join(s.cfgDir, "ide", itoa(r.Port)+".lock"); r.LockPath != want {
			t.Errorf("lockPath = %q, want %q (CLAUDE_CONFIG_DIR/ide/<port>.lock)", r.LockPath, want)
		}
		if r.Env["CLAUDE_CODE_SSE_PORT"] != itoa(r.Port) || r.Env["ENABLE_IDE_INTEGRATION"] != "true" ||
			!strings.Contains(r.Env["no_proxy"], "127.0.0.1") || !strings.Contains(r.Env["NO_PROXY"], "127.0.0.1") {
			t.Errorf("env = %v", r.Env)
		}
		// "pid: written as the lock file's pid ... give the editor's own pid."
		l := readLock(t, r.LockPath)
		if l.PID != os.Getpid() || l.IDEName != "Scripted" || l.Transport != "ws" || l.AuthToken == "" ||
			len(l.WorkspaceFolders) != 1 || l.WorkspaceFolders[0] != s.ws {
			t.Errorf("lock = %+v, want pid %d and folder %s", l, os.Getpid(), s.ws)
		}
		c := claude(t, r)
		var tools struct {
			Tools []struct{ Name string }
		}
		if err := c.Call(testbin.Ctx(t), "tools/list", nil, &tools); err != nil || len(tools.Tools) != 12 {
			t.Errorf("tools/list with every capability: %d tools, err %v; want 12", len(tools.Tools), err)
		}
	})
}

func TestInitializeOrder(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		// "-32002: a request other than initialize before initialize, or initialize twice"
		if err := s.call(t, "status", nil, nil); rpcCode(err) != jsonrpc.CodeNotInitialized {
			t.Errorf("status before initialize: %v, want -32002", err)
		}
		if err := s.call(t, "atMentioned", map[string]any{"filePath": "/x"}, nil); rpcCode(err) != jsonrpc.CodeNotInitialized {
			t.Errorf("atMentioned before initialize: %v, want -32002", err)
		}
		s.notify(t, "selectionChanged", map[string]any{"filePath": "/x"}) // ignored, no answer
		// "name (required)"
		p := s.initParams()
		delete(p, "name")
		if err := s.call(t, "initialize", p, nil); rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), `"name"`) {
			t.Errorf("initialize without name: %v, want -32602 naming \"name\"", err)
		}
		p = s.initParams()
		p["positionEncoding"] = "utf-32"
		if err := s.call(t, "initialize", p, nil); rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "positionEncoding") {
			t.Errorf("initialize with utf-32: %v, want -32602 naming positionEncoding", err)
		}
		p = s.initParams()
		p["pid"] = "4242"
		if err := s.call(t, "initialize", p, nil); rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), `"pid"`) {
			t.Errorf("initialize with a string pid: %v, want -32602 naming \"pid\"", err)
		}
		r := s.initialize(t, nil)
		if err := s.call(t, "initialize", s.initParams(), nil); rpcCode(err) != jsonrpc.CodeNotInitialized {
			t.Errorf("second initialize: %v, want -32002", err)
		}
		// The failed attempts wrote no lock; the one that worked wrote exactly one, and the
		// MCP config of the model's code tools beside it (docs/model-tools.md), and the
		// --settings file of the bridge's hooks (internal/claudestate).
		entries, _ := os.ReadDir(filepath.Join(s.cfgDir, "ide"))
		port := strings.TrimSuffix(filepath.Base(r.LockPath), ".lock")
		want := []string{filepath.Base(r.LockPath), port + ".mcp.json", port + ".settings.json"}
		if len(entries) != 3 || entries[0].Name() != want[0] || entries[1].Name() != want[1] || entries[2].Name() != want[2] {
			t.Errorf("lock dir holds %v, want only %v", entries, want)
		}
		// "-32601 unknown method"
		if err := s.call(t, "frobnicate", nil, nil); rpcCode(err) != jsonrpc.CodeMethodNotFound {
			t.Errorf("unknown method: %v, want -32601", err)
		}
	})
}

func TestStatus(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		r := s.initialize(t, nil)
		claude(t, r)
		s.next(t, "clientConnected") // "clients" counts clients that finished their handshake
		var st struct {
			Port     int    `json:"port"`
			LockPath string `json:"lockPath"`
			Clients  int    `json:"clients"`
			Diffs    []any  `json:"diffs"`
		}
		if err := s.call(t, "status", map[string]any{}, &st); err != nil {
			t.Fatal(err)
		}
		if st.Port != r.Port || st.LockPath != r.LockPath || st.Clients != 1 || st.Diffs == nil || len(st.Diffs) != 0 {
			t.Errorf("status = %+v", st)
		}
	})
}

// claudeCommand answers the same argv, env and shell line serve prints (internal/claudecmd),
// with this bridge's hooks and code-tools files; a permissionMode that is neither a mode nor
// false is refused naming it.
func TestClaudeCommand(t *testing.T) {
	t.Parallel()
	bin := t.TempDir() // claude's program is looked up on the bridge's $PATH (claudecmd)
	os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\n"), 0o755)
	s := startSidecarEnv(t, []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}, "ndjson")
	r := s.initialize(t, nil)
	var c struct {
		Argv           []string
		Env            map[string]string
		Shell          string
		PermissionMode string
		Why            string
	}
	if err := s.call(t, "claudeCommand", map[string]any{"args": []string{"--resume"}}, &c); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.cfgDir, "ide", itoa(r.Port))
	want := []string{filepath.Join(bin, "claude"), "--permission-mode", "default", "--settings", dir + ".settings.json", "--mcp-config", dir + ".mcp.json", "--resume"}
	if strings.Join(c.Argv, "\n") != strings.Join(want, "\n") || c.PermissionMode != "default" || c.Why == "" {
		t.Errorf("claudeCommand = %+v\nwant argv %q", c, want)
	}
	if c.Env["CLAUDE_CODE_SSE_PORT"] != itoa(r.Port) || !strings.HasPrefix(c.Shell, "CLAUDE_CODE_SSE_PORT="+itoa(r.Port)+" ") || !strings.HasSuffix(c.Shell, " --resume") {
		t.Errorf("env %v, shell %q", c.Env, c.Shell)
	}
	if err := s.call(t, "claudeCommand", map[string]any{"remote": true}, &c); err != nil || c.Argv[0] != "claude" {
		t.Errorf("remote: argv %q %v, want the remote's claude, not looked up here", c.Argv, err)
	}
	err := s.call(t, "claudeCommand", map[string]any{"command": []string{"no-such-claude"}}, nil)
	if e, ok := err.(*jsonrpc.Error); !ok || !strings.Contains(e.Message, "no-such-claude: not found on $PATH outside the workspace") {
		t.Errorf("a program not found: %v", err)
	}
	err = s.call(t, "claudeCommand", map[string]any{"permissionMode": 3}, nil)
	if e, ok := err.(*jsonrpc.Error); !ok || e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "permissionMode") {
		t.Errorf("permissionMode 3: %v", err)
	}
}

// claudeCommand's agent: gemini and qwen get their program (looked up as claude's is), the
// user's args and the variable naming this bridge's companion port (the port of its discovery
// file), nothing of Claude's and no token; an unknown agent, or one this bridge does not serve
// (--agents none), is an error naming why.
func TestClaudeCommandAgent(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	bin, tmpdir, qhome := filepath.Join(tmp, "bin"), filepath.Join(tmp, "t"), filepath.Join(tmp, "qwen")
	for _, d := range []string{bin, tmpdir, qhome} {
		os.Mkdir(d, 0o700)
	}
	for _, p := range []string{"gemini", "qwen"} {
		os.WriteFile(filepath.Join(bin, p), []byte("#!/bin/sh\n"), 0o755)
	}
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "TMPDIR=" + tmpdir, "QWEN_HOME=" + qhome}
	s := startSidecarEnv(t, env, "ndjson")
	s.initialize(t, nil)
	port := func(glob string) string { // the companion's port, from its discovery file's name
		m, _ := filepath.Glob(glob)
		if len(m) != 1 {
			t.Fatalf("discovery files %s: %q", glob, m)
		}
		n := strings.TrimSuffix(filepath.Base(m[0]), filepath.Ext(m[0]))
		return n[strings.LastIndexAny(n, "-")+1:]
	}
	for _, tc := range []struct{ agent, env, port string }{
		{"gemini", "GEMINI_CLI_IDE_SERVER_PORT", port(filepath.Join(tmpdir, "gemini", "ide", "gemini-ide-server-*.json"))},
		{"qwen", "QWEN_CODE_IDE_SERVER_PORT", port(filepath.Join(qhome, "ide", "*.lock"))},
	} {
		var c struct {
			Argv           []string
			Env            map[string]string
			Display, Shell string
			PermissionMode string
		}
		if err := s.call(t, "claudeCommand", map[string]any{"agent": tc.agent, "args": []string{"--yolo"}}, &c); err != nil {
			t.Fatal(tc.agent, err)
		}
		want := []string{filepath.Join(bin, tc.agent), "--yolo"}
		if strings.Join(c.Argv, "\n") != strings.Join(want, "\n") || c.PermissionMode != "" {
			t.Errorf("%s: %+v, want argv %q", tc.agent, c, want)
		}
		if len(c.Env) != 1 || c.Env[tc.env] != tc.port || c.Shell != tc.env+"="+tc.port+" "+c.Display {
			t.Errorf("%s: env %v shell %q, want only %s=%s", tc.agent, c.Env, c.Shell, tc.env, tc.port)
		}
	}
	err := s.call(t, "claudeCommand", map[string]any{"agent": "codex"}, nil)
	if e, ok := err.(*jsonrpc.Error); !ok || !strings.Contains(e.Message, `unknown agent "codex"`) {
		t.Errorf("agent codex: %v", err)
	}

	none := startSidecarEnv(t, env, "ndjson", "--agents", "none")
	none.initialize(t, nil)
	err = none.call(t, "claudeCommand", map[string]any{"agent": "gemini"}, nil)
	if e, ok := err.(*jsonrpc.Error); !ok || !strings.Contains(e.Message, "does not serve Gemini CLI") {
		t.Errorf("--agents none, gemini: %v", err)
	}
}
