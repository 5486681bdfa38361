package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

type diagEntry struct {
	URI         string `json:"uri"`
	Diagnostics []struct {
		Message  string `json:"message"`
		Severity string `json:"severity"`
		Range    struct {
			Start struct{ Line, Character int } `json:"start"`
			End   struct{ Line, Character int } `json:"end"`
		} `json:"range"`
		Source string `json:"source"`
	} `json:"diagnostics"`
}

func getDiagnostics(t *testing.T, s *server, args map[string]any) []diagEntry {
	t.Helper()
	c := s.claude(t)
	r, err := c.Tool(testbin.Ctx(t), "getDiagnostics", args)
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError || len(r.Content) != 1 {
		t.Fatalf("getDiagnostics %v: %+v", args, r)
	}
	var out []diagEntry
	if err := json.Unmarshal([]byte(r.Content[0].Text), &out); err != nil {
		t.Fatalf("getDiagnostics result %q: %v", r.Content[0].Text, err)
	}
	return out
}

func toolNames(t *testing.T, s *server) []string {
	t.Helper()
	c := s.claude(t)
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := c.Call(testbin.Ctx(t), "tools/list", nil, &res); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// serve --lsp .go=gopls: getDiagnostics {uri} answers gopls's error with its range (in the
// terminal's encoding, bytes), severity and the uri exactly as asked (facts: "Return uri exactly
// as asked (not percent-encoded)"); fixing the file clears it; {} answers the workspace.
func TestServeDiagnosticsGopls(t *testing.T) {
	gopls := harness.Gopls(t)
	h := newHome(t)
	dir := filepath.Join(h.ws, "my module é") // a space and a non-ASCII name: the uri stays raw
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	path := filepath.Join(dir, "main.go")
	const bad = "package main\n\nfunc main() {\n\t_ = \"é\"; var s string = 1\n\t_ = s\n}\n"
	os.WriteFile(path, []byte(bad), 0o644)
	h.trust(t, h.ws)
	s := h.serve(t, harness.GoEnv(t), "--auto", "accept", "--lsp", ".go="+gopls)
	// serve says which language servers it uses, in a line printed after the port line that
	// h.serve waits for: wait for it too (reading stdout at once raced with it under load).
	s.waitFor(t, reText("language servers (getDiagnostics): "+gopls+" (.go)\n"))
	if names := toolNames(t, s); !contains(names, "getDiagnostics") {
		t.Errorf("tools/list with a language server lacks getDiagnostics: %v", names)
	}
	uri := "file://" + path
	got := getDiagnostics(t, s, map[string]any{"uri": uri})
	if len(got) != 1 || got[0].URI != uri || len(got[0].Diagnostics) != 1 {
		t.Fatalf("getDiagnostics = %+v, want one entry for %s with one diagnostic", got, uri)
	}
	d := got[0].Diagnostics[0]
	line := strings.Split(bad, "\n")[3]
	col := strings.Index(line, "= 1") + 2 // bytes: the terminal's encoding is UTF-8
	if d.Severity != "Error" || d.Range.Start.Line != 3 || d.Range.Start.Character != col || d.Range.End.Line != 3 || d.Range.End.Character != col+1 ||
		!strings.Contains(d.Message, "cannot use 1") || d.Source != "compiler" {
		t.Errorf("diagnostic = %+v, want an Error at 3:%d-3:%d saying cannot use 1, from compiler", d, col, col+1)
	}
	all := getDiagnostics(t, s, map[string]any{})
	if len(all) != 1 || all[0].URI != uri || len(all[0].Diagnostics) != 1 {
		t.Errorf("getDiagnostics {} = %+v, want main.go's error", all)
	}

	os.WriteFile(path, []byte(strings.Replace(bad, "= 1", "= \"one\"", 1)), 0o644)
	got = getDiagnostics(t, s, map[string]any{"uri": uri})
	if len(got) != 1 || got[0].URI != uri || len(got[0].Diagnostics) != 0 {
		t.Errorf("getDiagnostics after the fix = %+v, want %s with no diagnostics", got, uri)
	}
	if all := getDiagnostics(t, s, map[string]any{}); len(all) != 0 {
		t.Errorf("getDiagnostics {} after the fix = %+v, want none", all)
	}
	// A file no server is configured for has no diagnostics (the CLI asks before every edit).
	txt := filepath.Join(h.ws, "notes.txt")
	os.WriteFile(txt, []byte("hi\n"), 0o644)
	if got := getDiagnostics(t, s, map[string]any{"uri": "file://" + txt}); len(got) != 1 || len(got[0].Diagnostics) != 0 {
		t.Errorf("getDiagnostics of a .txt = %+v, want no diagnostics", got)
	}
}

func TestServeLSPFlags(t *testing.T) {
	h := newHome(t)
	s := h.serve(t, nil, "--auto", "accept", "--lsp", "none")
	s.waitFor(t, reText("language servers (getDiagnostics): none\n")) // printed after the port line
	if names := toolNames(t, s); contains(names, "getDiagnostics") {
		t.Errorf("tools/list without a language server lists getDiagnostics: %v", names)
	}
	for _, bad := range [][]string{{"--lsp", "gopls"}, {"--lsp", ".go="}, {"--lsp", "none", "--lsp", ".go=gopls"}} {
		_, stderr, code := h.command(t, h.ws, append([]string{"serve"}, bad...)...)
		if code != 2 || !strings.Contains(stderr, "--lsp") {
			t.Errorf("serve %v: status %d, stderr %q; want 2 and a message naming --lsp", bad, code, stderr)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Issue 39 item 10: "serve offers rust-analyzer for a folder with no Rust file". With gopls and
// rust-analyzer on $PATH, a folder of Go files gets gopls only.
func TestServeOffersServersForTheFoldersLanguages(t *testing.T) {
	h := newHome(t)
	bin := t.TempDir()
	for _, name := range []string{"gopls", "rust-analyzer"} {
		os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 1\n"), 0o755)
	}
	os.MkdirAll(filepath.Join(h.ws, "cmd", ".cache"), 0o755)
	os.WriteFile(filepath.Join(h.ws, "cmd", "main.go"), []byte("package main\n"), 0o644)
	os.WriteFile(filepath.Join(h.ws, "cmd", ".cache", "x.rs"), []byte("fn main() {}\n"), 0o644) // hidden: not looked into
	s := h.serve(t, []string{"PATH=" + bin + ":/usr/bin:/bin"}, "--auto", "accept")
	m := s.waitFor(t, regexp.MustCompile(`language servers \(getDiagnostics\): (.*)\n`))
	if !strings.Contains(m[1], "gopls") || strings.Contains(m[1], "rust-analyzer") {
		t.Fatalf("servers offered: %s", m[1])
	}
}
