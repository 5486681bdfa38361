package modeltools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/exclude"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/navtest"
)

// envSecret is the secret of the excluded files below; no answer or error may carry it.
const envSecret = "sk-live-0b1c2d3e4f5a6b7c8d9e"

// excludedLayout is a workspace (a copy of testdata/nav) holding .env and server.key, each one
// line with the secret, and settings.txt, a symlink to .env (real files, a real link).
func excludedLayout(t *testing.T) (ws string, excluded []string) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	navtest.Copy(t, ws)
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("API_TOKEN="+envSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "server.key"), []byte(envSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".env", filepath.Join(ws, "settings.txt")); err != nil {
		t.Fatal(err)
	}
	return ws, []string{".env", "server.key", "settings.txt"}
}

// secretServer stands in for a language server that knows the excluded files: every answer
// points into target, with the secret as a symbol's and a caller's name.
func secretServer(target string) *recorder {
	return &recorder{answer: func(method string) string { return secretAnswer(target, method) }}
}

func secretAnswer(target, method string) string {
	uri := "file://" + filepath.ToSlash(target)
	rng := `{"start":{"line":0,"character":0},"end":{"line":0,"character":3}}`
	var ans string
	switch method {
	case "workspace/symbol":
		ans = `[{"name":"` + envSecret + `","kind":13,"location":{"uri":"` + uri + `","range":` + rng + `}}]`
	case "textDocument/prepareCallHierarchy":
		ans = `[{"name":"Total","kind":12,"uri":"` + uri + `","range":` + rng + `,"selectionRange":` + rng + `}]`
	case "callHierarchy/incomingCalls":
		ans = `[{"from":{"name":"` + envSecret + `","kind":12,"uri":"` + uri + `","range":` + rng + `,"selectionRange":` + rng + `},"fromRanges":[` + rng + `]}]`
	case "textDocument/rename":
		ans = `{"changes":{"` + uri + `":[{"range":` + rng + `,"newText":"X"}]}}`
	case "textDocument/hover":
		ans = `{"contents":"fine"}`
	default:
		ans = `[{"uri":"` + uri + `","range":` + rng + `}]`
	}
	return ans
}

var positionTools = []string{"definition", "references", "hover", "implementations", "incoming_calls", "rename_preview"}

// TestToolsRefuseExcludedFiles (issue 35 item 2): /mcp asked about .env, server.key or a
// symlink settings.txt -> .env, by relative or absolute path, refuses before any source is
// asked, and neither the answer nor the error carries a byte of the secret. Before, definition
// with a symbol not on the line answered "... which reads: API_TOKEN=sk-live-...".
func TestToolsRefuseExcludedFiles(t *testing.T) {
	ws, excluded := excludedLayout(t)
	set, err := exclude.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	folders := func() []string { return []string{ws} }
	src := secretServer(filepath.Join(ws, "use.go"))
	for name, o := range map[string]modeltools.Options{
		"the bridge's rule":    {Source: src, Folders: folders, Excluded: func(p string) bool { return set.Excludes(p, folders()) }},
		"no rule: the default": {Source: src, Folders: folders},
	} {
		s := serveTools(t, o)
		for _, rel := range excluded {
			for _, p := range []string{rel, filepath.Join(ws, rel), "file://" + filepath.Join(ws, rel)} {
				for _, tool := range positionTools {
					args := map[string]any{"path": p, "line": 1, "symbol": "nothere"}
					if tool == "rename_preview" {
						args["new_name"] = "x"
					}
					text, isErr := call(t, s, tool, args)
					if !isErr || !strings.Contains(text, "excluded from sharing") || strings.Contains(text, envSecret) {
						t.Errorf("%s: %s %s: got %v %q, want an error saying it is excluded, quoting nothing", name, tool, p, isErr, text)
					}
				}
				for _, tool := range []string{"document_symbols", "workspace_symbols"} {
					args := map[string]any{"path": p}
					if tool == "workspace_symbols" {
						args["query"] = "API"
					}
					text, isErr := call(t, s, tool, args)
					if !isErr || !strings.Contains(text, "excluded from sharing") || strings.Contains(text, envSecret) {
						t.Errorf("%s: %s %s: got %v %q", name, tool, p, isErr, text)
					}
				}
			}
		}
	}
	src.checkUnasked(t)
}

// TestAnswersDoNotQuoteExcluded (issue 35 item 2): a server's answer pointing into .env,
// server.key or the link to .env (a definition, references, a symbol named after the secret,
// a caller, a rename's edit) lists the place without its line, name or edit.
func TestAnswersDoNotQuoteExcluded(t *testing.T) {
	ws, excluded := excludedLayout(t)
	for _, rel := range excluded {
		src := secretServer(filepath.Join(ws, rel))
		s := serveTools(t, modeltools.Options{Source: src, Folders: func() []string { return []string{ws} }})
		pos := map[string]any{"path": "use.go", "line": 5, "symbol": "Total"}
		for _, tool := range positionTools {
			args := map[string]any{}
			for k, v := range pos {
				args[k] = v
			}
			if tool == "rename_preview" {
				args["new_name"] = "Sum"
			}
			text, isErr := call(t, s, tool, args)
			if isErr || strings.Contains(text, envSecret) || (tool != "hover" && !strings.Contains(text, "excluded from sharing: not shown")) {
				t.Errorf("%s into %s: got %v %q, want the place without its text", tool, rel, isErr, text)
			}
		}
		text, isErr := call(t, s, "workspace_symbols", map[string]any{"path": "use.go", "query": "sk"})
		if isErr || strings.Contains(text, envSecret) || !strings.Contains(text, "excluded from sharing: not shown") {
			t.Errorf("workspace_symbols into %s: got %v %q", rel, isErr, text)
		}
	}
}
