// Package navtest holds what every test of the model's code tools shares: the test module
// (internal/modeltools/testdata/nav), an MCP client of /mcp, and the table of answers expected
// on that module, read off its source.
package navtest

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Root is testdata/nav, absolute and without symlinks.
func Root(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	root, err := filepath.EvalSymlinks(filepath.Join(filepath.Dir(file), "..", "..", "internal", "modeltools", "testdata", "nav"))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// Copy copies the test module into dir.
func Copy(t testing.TB, dir string) {
	t.Helper()
	for _, f := range []string{"go.mod", "shapes.go", "use.go"} {
		in, err := os.Open(filepath.Join(Root(t), f))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(out, in)
		in.Close()
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
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

// Connect connects an MCP client (the go-sdk's) to url with the bearer token; it is closed
// when the test ends.
func Connect(t testing.TB, url, token string) *mcp.ClientSession {
	t.Helper()
	tr := &http.Transport{}
	client := mcp.NewClient(&mcp.Implementation{Name: "navtest", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:             url,
		HTTPClient:           &http.Client{Transport: bearer{token, tr}},
		DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sess.Close()
		tr.CloseIdleConnections()
	})
	return sess
}

// Call calls a tool and returns its text and whether it is an error.
func Call(t testing.TB, s *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
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

// Places is an answer's result lines ("path:line:col: text"), in order.
func Places(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if i := strings.Index(l, ": "); i > 0 && strings.Count(l[:i], ":") == 2 {
			out = append(out, l)
		}
	}
	return out
}

// Equal fails the test when got and want differ, showing both.
func Equal(t testing.TB, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// References is the answer of references to Total (use.go line 5): the declaration and the
// two calls, read off testdata/nav.
var References = []string{
	"shapes.go:23:6: func Total(shapes []Shape) float64 {",
	"use.go:5:9: return Total([]Shape{Square{Side: 2}, Circle{R: 1}})",
	"use.go:10:9: return Total(nil) + Both() + Both()",
}

// Run checks every tool on the test module (a workspace whose root holds it) through call.
// Each expected place is read off testdata/nav (line numbers as cat -n shows them; columns
// count characters, a tab is one).
func Run(t *testing.T, call func(string, map[string]any) (string, bool)) {
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
		{"references", pos("use.go", 5, "Total"), References},
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
			Equal(t, c.tool, Places(text), c.want)
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
		for _, l := range Places(text) {
			if strings.Contains(l, "Area") {
				got = append(got, l)
			}
		}
		Equal(t, "workspace_symbols", got, []string{
			"shapes.go:7:2: method Shape.Area (in example.com/nav)",
			"shapes.go:14:17: method Square.Area (in example.com/nav)",
			"shapes.go:20:17: method Circle.Area (in example.com/nav)"})
	})
}
