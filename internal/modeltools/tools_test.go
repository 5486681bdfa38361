package modeltools_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/navtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func navRoot(t testing.TB) string { return navtest.Root(t) }

// serveTools serves the tools over real loopback HTTP behind the bridge's check and returns a
// connected MCP client session.
func serveTools(t testing.TB, o modeltools.Options) *mcp.ClientSession {
	t.Helper()
	const token = "0123456789abcdef0123456789abcdef"
	var port int
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = modeltools.NewHandler(o, func(r *http.Request) (int, string) {
		return transport.CheckBearer(r, port, token)
	}, nil)
	srv.Start()
	port = srv.Listener.Addr().(*net.TCPAddr).Port
	t.Cleanup(srv.Close)
	return navtest.Connect(t, srv.URL+"/mcp", token)
}

func call(t testing.TB, s *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	return navtest.Call(t, s, name, args)
}

var (
	places = navtest.Places
	equal  = navtest.Equal
)

// TestToolsGopls checks every tool against a real gopls on testdata/nav: each answers exactly
// the places read off the source (navtest.Run).
func TestToolsGopls(t *testing.T) {
	root := navRoot(t)
	g := startGopls(t, root)
	s := serveTools(t, modeltools.Options{Source: g, Folders: func() []string { return []string{root} }})
	navtest.Run(t, func(name string, args map[string]any) (string, bool) { return call(t, s, name, args) })
}

// TestRenamePreviewChangesNothing: rename_preview never writes a file.
func TestRenamePreviewChangesNothing(t *testing.T) {
	root := navRoot(t)
	before := map[string]string{}
	for _, f := range []string{"shapes.go", "use.go"} {
		b, _ := os.ReadFile(filepath.Join(root, f))
		before[f] = string(b)
	}
	g := startGopls(t, root)
	s := serveTools(t, modeltools.Options{Source: g, Folders: func() []string { return []string{root} }})
	if text, isErr := call(t, s, "rename_preview", map[string]any{"path": "use.go", "line": 4, "symbol": "Both", "new_name": "Pair"}); isErr || !strings.Contains(text, "nothing was changed") {
		t.Fatalf("%v %s", isErr, text)
	}
	for f, want := range before {
		if b, _ := os.ReadFile(filepath.Join(root, f)); string(b) != want {
			t.Errorf("%s was changed", f)
		}
	}
}

func TestSymbolColumnAndBadInput(t *testing.T) {
	root := navRoot(t)
	g := startGopls(t, root)
	// /proc/self is a second workspace folder only so that the pagemap case below reaches the
	// file reader's own refusal rather than the workspace's.
	s := serveTools(t, modeltools.Options{Source: g, Folders: func() []string { return []string{root, "/proc/self"} }})
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "use.go", "line": 5, "symbol": "Nope"}, `"Nope" is not on line 5 of use.go, which reads: return Total(`},
		{map[string]any{"path": "use.go", "line": 99, "symbol": "Total"}, "line 99 is out of range: use.go has"},
		{map[string]any{"path": "missing.go", "line": 1, "symbol": "x"}, "missing.go does not exist"},
		// /proc/self/pagemap stats as 0 bytes and reads ~256 GiB (issue 15): refused, never read.
		{map[string]any{"path": "/proc/self/pagemap", "line": 1, "symbol": "x"}, "holds no user files"},
		{map[string]any{"path": "use.go", "line": 5, "symbol": ""}, "symbol is required"},
	} {
		text, isErr := call(t, s, "definition", c.args)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%v: got %v %q, want an error with %q", c.args, isErr, text, c.want)
		}
	}
	// The symbol's whole-word occurrence is used, not a longer name containing it: "Both"
	// on line 10 is the call, column 22; "s" on line 26 is the variable, not the s of "sum".
	text, _ := call(t, s, "definition", map[string]any{"path": "shapes.go", "line": 26, "symbol": "s"})
	equal(t, "definition of s", places(text), []string{"shapes.go:25:9: for _, s := range shapes {"})
}

// TestNoServer: with no language server the answer is an error naming what is missing.
func TestNoServer(t *testing.T) {
	root := navRoot(t)
	none := modeltools.SourceFunc(func(ctx context.Context, path, method string, params, result any) (modeltools.Answer, error) {
		return modeltools.Answer{}, &modeltools.NoServerError{Source: "the bridge", Reason: "no language server for .go files (serve --lsp .go=gopls)"}
	})
	editor := modeltools.SourceFunc(func(ctx context.Context, path, method string, params, result any) (modeltools.Answer, error) {
		return modeltools.Answer{}, &modeltools.NoServerError{Source: "the editor", Reason: "no LSP client attached to " + filepath.Base(path)}
	})
	s := serveTools(t, modeltools.Options{Source: modeltools.First(editor, nil, none), Folders: func() []string { return []string{root} }})
	text, isErr := call(t, s, "references", map[string]any{"path": "use.go", "line": 5, "symbol": "Total"})
	want := "no language server for " + filepath.Join(root, "use.go") + " (the editor: no LSP client attached to use.go; the bridge: no language server for .go files (serve --lsp .go=gopls))"
	if !isErr || !strings.Contains(text, want) {
		t.Errorf("got %v %q\nwant %q", isErr, text, want)
	}
}

// TestBounded: more results than the cap end with "N more".
func TestBounded(t *testing.T) {
	root := navRoot(t)
	g := startGopls(t, root)
	s := serveTools(t, modeltools.Options{Source: g, MaxResults: 2, Folders: func() []string { return []string{root} }})
	text, _ := call(t, s, "references", map[string]any{"path": "use.go", "line": 5, "symbol": "Total"})
	if n := len(places(text)); n != 2 || !strings.Contains(text, "… 1 more not shown (3 in all)") {
		t.Errorf("%d places:\n%s", n, text)
	}
}
