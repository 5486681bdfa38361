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
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// navRoot is the test module, symlinks resolved (gopls answers with resolved paths).
func navRoot(t testing.TB) string {
	root, err := filepath.Abs("testdata/nav")
	if err != nil {
		t.Fatal(err)
	}
	root, err = filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

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
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:             srv.URL + "/mcp",
		HTTPClient:           &http.Client{Transport: bearer{token, http.DefaultTransport}},
		DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sess.Close()
		srv.Close()
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	})
	return sess
}

// call calls a tool and returns its text and whether it is an error.
func call(t testing.TB, s *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// lines is a tool answer's result lines (those that start with a place), in order.
func places(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if i := strings.Index(l, ": "); i > 0 && strings.Count(l[:i], ":") == 2 {
			out = append(out, l)
		}
	}
	return out
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestToolsGopls checks every tool against a real gopls on testdata/nav: each answers exactly
// the places read off the source (see the comments in testdata/nav for the lines).
func TestToolsGopls(t *testing.T) {
	root := navRoot(t)
	g := startGopls(t, root)
	s := serveTools(t, modeltools.Options{Source: g, Folders: func() []string { return []string{root} }})
	RunNavChecks(t, func(name string, args map[string]any) (string, bool) { return call(t, s, name, args) })
}

// RunNavChecks is the table of expected answers on testdata/nav, shared by every source.
func RunNavChecks(t *testing.T, call func(string, map[string]any) (string, bool)) {
	pos := func(path string, line int, sym string) map[string]any {
		return map[string]any{"path": path, "line": line, "symbol": sym}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"definition", pos("use.go", 5, "Total"), []string{
			"shapes.go:23:6: func Total(shapes []Shape) float64 {"}},
		{"references", pos("use.go", 5, "Total"), []string{
			"shapes.go:23:6: func Total(shapes []Shape) float64 {",
			"use.go:5:9: return Total([]Shape{Square{Side: 2}, Circle{R: 1}})",
			"use.go:10:9: return Total(nil) + Both() + Both()"}},
		{"implementations", pos("shapes.go", 6, "Shape"), []string{
			"shapes.go:11:6: type Square struct{ Side float64 }",
			"shapes.go:17:6: type Circle struct{ R float64 }"}},
		{"implementations", pos("shapes.go", 7, "Area"), []string{
			"shapes.go:14:17: func (s Square) Area() float64 { return s.Side * s.Side }",
			"shapes.go:20:17: func (c Circle) Area() float64 { return 3 * c.R * c.R }"}},
		{"incoming_calls", pos("use.go", 4, "Both"), []string{
			"use.go:10:22: return Total(nil) + Both() + Both()   (in Twice)",
			"use.go:10:31: return Total(nil) + Both() + Both()   (in Twice)"}},
		{"rename_preview", map[string]any{"path": "shapes.go", "line": 23, "symbol": "Total", "new_name": "Sum"}, []string{
			"shapes.go:22:4: // Sum adds the areas.", // gopls renames the doc comment too
			"shapes.go:23:6: func Sum(shapes []Shape) float64 {",
			"use.go:5:9: return Sum([]Shape{Square{Side: 2}, Circle{R: 1}})",
			"use.go:10:9: return Sum(nil) + Both() + Both()"}},
		{"document_symbols", map[string]any{"path": "use.go"}, []string{
			"use.go:4:6: function Both func() float64",
			"use.go:9:6: function Twice func() float64"}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			text, isErr := call(c.tool, c.args)
			if isErr {
				t.Fatalf("error: %s", text)
			}
			equal(t, c.tool, places(text), c.want)
		})
	}
	t.Run("hover", func(t *testing.T) {
		text, isErr := call("hover", pos("use.go", 10, "Total"))
		if isErr || !strings.Contains(text, "func Total(shapes []Shape) float64") || !strings.Contains(text, "Total adds the areas.") {
			t.Errorf("hover: %v %s", isErr, text)
		}
	})
	t.Run("workspace_symbols", func(t *testing.T) {
		text, isErr := call("workspace_symbols", map[string]any{"query": "Area", "path": "use.go"})
		if isErr {
			t.Fatal(text)
		}
		var got []string
		for _, l := range places(text) {
			if strings.Contains(l, "Area") {
				got = append(got, l)
			}
		}
		equal(t, "workspace_symbols", got, []string{
			"shapes.go:7:2: method Shape.Area (in example.com/nav)",
			"shapes.go:14:17: method Square.Area (in example.com/nav)",
			"shapes.go:20:17: method Circle.Area (in example.com/nav)"})
	})
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
	s := serveTools(t, modeltools.Options{Source: g, Folders: func() []string { return []string{root} }})
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "use.go", "line": 5, "symbol": "Nope"}, `"Nope" is not on line 5 of use.go, which reads: return Total(`},
		{map[string]any{"path": "use.go", "line": 99, "symbol": "Total"}, "line 99 is out of range: use.go has"},
		{map[string]any{"path": "missing.go", "line": 1, "symbol": "x"}, "missing.go does not exist"},
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
