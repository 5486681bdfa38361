package lsp_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
)

func TestParseServer(t *testing.T) {
	for _, c := range []struct {
		in   string
		want lsp.ServerConfig
	}{
		{".go=gopls", lsp.ServerConfig{Extensions: []string{".go"}, Command: []string{"gopls"}}},
		{"py=pyright-langserver --stdio", lsp.ServerConfig{Extensions: []string{".py"}, Command: []string{"pyright-langserver", "--stdio"}}},
		{".ts, .TSX=typescript-language-server  --stdio", lsp.ServerConfig{Extensions: []string{".ts", ".tsx"}, Command: []string{"typescript-language-server", "--stdio"}}},
		{".c=/opt/clangd --log=error", lsp.ServerConfig{Extensions: []string{".c"}, Command: []string{"/opt/clangd", "--log=error"}}},
	} {
		got, err := lsp.ParseServer(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseServer(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"gopls", ".go=", ".go=  ", "=gopls", ".a/b=x", ",.go=gopls"} {
		if _, err := lsp.ParseServer(bad); err == nil {
			t.Errorf("ParseServer(%q) accepted", bad)
		}
	}
}

func TestDetectAndMerge(t *testing.T) {
	onPath := map[string]string{"gopls": "/bin/gopls", "pylsp": "/bin/pylsp", "pyright-langserver": "/bin/pyright-langserver", "clangd": "/bin/clangd"}
	look := func(name string) (string, error) {
		if p, ok := onPath[name]; ok {
			return p, nil
		}
		return "", errors.New("not found")
	}
	got := lsp.Detect(look)
	// pyright-langserver wins over pylsp; rust-analyzer and typescript-language-server are absent.
	if d := lsp.Describe(got); d != "/bin/gopls (.go), /bin/pyright-langserver --stdio (.py .pyi), /bin/clangd (.c .h .cc .cpp .cxx .hpp .hh .hxx .m .mm)" {
		t.Errorf("Detect: %s", d)
	}
	delete(onPath, "pyright-langserver")
	if d := lsp.Describe(lsp.Detect(look)); !strings.Contains(d, "/bin/pylsp (.py .pyi)") {
		t.Errorf("Detect without pyright: %s, want pylsp", d)
	}
	explicit := []lsp.ServerConfig{{Extensions: []string{".go", ".h"}, Command: []string{"mygo"}}}
	merged := lsp.Merge(explicit, got)
	if d := lsp.Describe(merged); d != "mygo (.go .h), /bin/pyright-langserver --stdio (.py .pyi), /bin/clangd (.c .cc .cpp .cxx .hpp .hh .hxx .m .mm)" {
		t.Errorf("Merge: %s", d)
	}
	if d := lsp.Describe(nil); d != "none" {
		t.Errorf("Describe(nil) = %q", d)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []lsp.Config{
		{Root: "relative"},
		{Root: "/w", Servers: []lsp.ServerConfig{{Extensions: []string{".go"}}}},
		{Root: "/w", Servers: []lsp.ServerConfig{{Extensions: []string{".go"}, Command: []string{"a"}}, {Extensions: []string{"go"}, Command: []string{"b"}}}},
		{Root: "/w", Encoding: "utf-32"},
	} {
		if _, err := lsp.New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
	// One process for several extensions of one command.
	m, err := lsp.New(lsp.Config{Root: "/w", Servers: []lsp.ServerConfig{{Extensions: []string{".ts"}, Command: []string{"tls"}}, {Extensions: []string{".js"}, Command: []string{"tls"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Servers(); len(s) != 1 || !reflect.DeepEqual(s[0].Extensions, []string{".ts", ".js"}) {
		t.Errorf("Servers() = %+v, want one server for .ts and .js", s)
	}
	if !m.Handles("/w/a.JS") || m.Handles("/w/a.go") {
		t.Error("Handles")
	}
}

// WithFiles keeps a server only for a language the folder holds a file of, looking into
// subfolders but not hidden ones or node_modules.
func TestWithFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a/b/c/deep.py", "node_modules/x/y.ts", ".git/z.rs", "README"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	servers := []lsp.ServerConfig{
		{Extensions: []string{".go"}, Command: []string{"gopls"}},
		{Extensions: []string{".rs"}, Command: []string{"rust-analyzer"}},
		{Extensions: []string{".ts", ".PY"}, Command: []string{"both"}},
	}
	got := lsp.WithFiles(servers, dir)
	if len(got) != 1 || got[0].Command[0] != "both" {
		t.Fatalf("kept %v, want only the server with .py", got)
	}
}
