package modeltools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/navtest"
)

// secret is the one line of a private key outside the workspace; no answer may carry it.
const secret = "SECRET-KEY-MATERIAL-d41d8cd98f00b204"

// hostileLayout is a HOME-like folder with ~/.ssh/id_ed25519 and, beside it, a workspace
// (a copy of testdata/nav) holding symlinks that point out of it: to the key, and to ~/.ssh.
func hostileLayout(t *testing.T) (ws, key string) {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ssh := filepath.Join(home, ".ssh")
	if err := os.Mkdir(ssh, 0o700); err != nil {
		t.Fatal(err)
	}
	key = filepath.Join(ssh, "id_ed25519")
	if err := os.WriteFile(key, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws = filepath.Join(home, "project")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	navtest.Copy(t, ws)
	for link, target := range map[string]string{"key.go": key, "sshdir": ssh} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	return ws, key
}

// recorder is a stand-in language server (no real server runs: refusals must happen before any
// source is asked). It records every path it is asked about and answers what answer returns
// for the method (nothing without it).
type recorder struct {
	mu     sync.Mutex
	asked  []string
	answer func(method string) string
}

func (r *recorder) Request(_ context.Context, path, method string, _, result any) (modeltools.Answer, error) {
	r.mu.Lock()
	r.asked = append(r.asked, path)
	r.mu.Unlock()
	if raw, ok := result.(*json.RawMessage); ok && r.answer != nil {
		*raw = json.RawMessage(r.answer(method))
	}
	return modeltools.Answer{Encoding: "utf-16"}, nil
}

// checkUnasked fails the test when the recorder was asked about any path.
func (r *recorder) checkUnasked(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.asked) != 0 {
		t.Errorf("the source was asked about %q", r.asked)
	}
}

// definitionIn answers a definition in target, line 0.
func definitionIn(target string) func(string) string {
	return func(string) string {
		return `[{"uri":"file://` + filepath.ToSlash(target) + `","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":3}}}]`
	}
}

// TestToolsReadOnlyTheWorkspace (issue 25 item 2): a path outside every workspace folder,
// given directly, through a symlink inside the workspace or with "..", is refused before any
// language server is asked, and no answer or error quotes a line of it.
func TestToolsReadOnlyTheWorkspace(t *testing.T) {
	ws, key := hostileLayout(t)
	rec := &recorder{}
	s := serveTools(t, modeltools.Options{Source: rec, Folders: func() []string { return []string{ws} }})
	for _, p := range []string{
		key,                  // absolute, outside
		"key.go",             // a symlink in the workspace to the key
		"sshdir/id_ed25519",  // through a symlinked folder
		"sshdir/missing.go",  // a missing file under a symlink out: refused, not "does not exist"
		"../.ssh/id_ed25519", // ..
		filepath.Join(ws, "../.ssh/id_ed25519"),
		"file://" + key,
	} {
		for _, tool := range []string{"definition", "hover", "references", "rename_preview"} {
			args := map[string]any{"path": p, "line": 1, "symbol": "nothere"}
			if tool == "rename_preview" {
				args["new_name"] = "x"
			}
			text, isErr := call(t, s, tool, args)
			if !isErr || !strings.Contains(text, "outside the workspace") || strings.Contains(text, secret) || strings.Contains(text, "does not exist") {
				t.Errorf("%s %s: got %v %q, want an error saying it is outside the workspace, quoting nothing", tool, p, isErr, text)
			}
		}
		for _, tool := range []string{"document_symbols", "workspace_symbols"} {
			args := map[string]any{"path": p}
			if tool == "workspace_symbols" {
				args["query"] = "x"
			}
			text, isErr := call(t, s, tool, args)
			if !isErr || !strings.Contains(text, "outside the workspace") || strings.Contains(text, secret) {
				t.Errorf("%s %s: got %v %q", tool, p, isErr, text)
			}
		}
	}
	rec.checkUnasked(t)
	// Inside the workspace the tools still work (the recorder answers).
	if text, isErr := call(t, s, "document_symbols", map[string]any{"path": "use.go"}); isErr {
		t.Errorf("use.go: %s", text)
	}
}

// TestAnswersDoNotQuoteOutside: a server's answer pointing outside the workspace is listed by
// place, without the line's text.
func TestAnswersDoNotQuoteOutside(t *testing.T) {
	ws, key := hostileLayout(t)
	for _, target := range []string{key, filepath.Join(ws, "key.go")} {
		rec := &recorder{answer: definitionIn(target)}
		s := serveTools(t, modeltools.Options{Source: rec, Folders: func() []string { return []string{ws} }})
		text, isErr := call(t, s, "definition", map[string]any{"path": "use.go", "line": 5, "symbol": "Total"})
		if isErr || strings.Contains(text, secret) || !strings.Contains(text, "outside the workspace") {
			t.Errorf("answer in %s: got %v %q, want the place without its text", target, isErr, text)
		}
	}
}
