package stdio_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// Issue 35 item 2: with the default exclude globs, nothing of .env, server.key or a symlink
// settings.txt -> .env reaches Claude by any channel of the real bridge: the editor's
// selections, @-mentions, getLatestSelection, getOpenEditors, getDiagnostics (whose message
// quotes the secret), and the model's code tools at /mcp, asked about the files or answered
// with places in them. Real files, a real link, the bridge binary, Claude over loopback.
func TestExcludeThroughLinksEveryChannel(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-0b1c2d3e4f5a6b7c8d9e"
	s := startSidecar(t, "line")
	r := s.initWith(t, map[string]bool{"lspRequest": true})
	env := s.writeFile(t, ".env", "API_TOKEN="+secret+"\n")
	key := s.writeFile(t, "server.key", secret+"\n")
	main := s.writeFile(t, "main.go", "package main\n\nfunc main() {}\n")
	link := filepath.Join(s.ws, "settings.txt")
	if err := os.Symlink(".env", link); err != nil {
		t.Fatal(err)
	}
	secretFiles := []string{link, env, key}
	c := claude(t, r)
	s.next(t, "clientConnected")

	sel := func(path, text string) map[string]any {
		return map[string]any{"text": text, "filePath": path, "selection": map[string]any{
			"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": len(text)}, "isEmpty": false}}
	}
	for _, f := range []string{env, key, link} { // the link last: an excluded selection clears the latest
		s.notify(t, "selectionChanged", sel(f, "API_TOKEN="+secret))
	}
	// A round trip through the bridge after the selections (the editor's notifications are
	// handled in order): what it kept of them is what getLatestSelection answers.
	for _, name := range []string{"getLatestSelection", "getCurrentSelection"} {
		if got := strings.Join(tool(t, c, name, nil).Texts(), ""); strings.Contains(got, secret) || strings.Contains(got, "settings.txt") {
			t.Errorf("%s after selections in the secret files: %s", name, got)
		}
	}
	s.notify(t, "selectionChanged", sel(main, "package main"))
	m, err := c.Next(testbin.Ctx(t), "selection_changed")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(m.Params), secret) || !strings.Contains(string(m.Params), main) {
		t.Errorf("first selection_changed Claude got: %s; want main.go's", m.Params)
	}

	for _, f := range secretFiles {
		for _, path := range []string{f, filepath.Base(f)} {
			if err := s.call(t, "atMentioned", map[string]any{"filePath": path}, nil); err == nil || !strings.Contains(err.Error(), "excluded from sharing") {
				t.Errorf("atMentioned %s: %v, want refused as excluded", path, err)
			}
		}
	}

	var eds, diags []string
	for _, f := range append(secretFiles, main) {
		msg := "unexpected API_TOKEN=" + secret // a server quoting the line
		if f == main {
			msg = "main is unused"
		}
		eds = append(eds, `{"filePath":"`+f+`","label":"`+filepath.Base(f)+`"}`)
		diags = append(diags, `{"filePath":"`+f+`","diagnostics":[{"message":"`+msg+`","severity":"Error","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":3}}}]}`)
	}
	s.reply("getOpenEditors", `{"editors":[`+strings.Join(eds, ",")+`]}`)
	s.reply("getDiagnostics", `{"files":[`+strings.Join(diags, ",")+`]}`)
	shown := func(what, got string) {
		t.Helper()
		for _, f := range secretFiles {
			if strings.Contains(got, secret) || strings.Contains(got, `"file://`+f+`"`) {
				t.Errorf("%s carries %s or the secret: %s", what, f, got)
			}
		}
	}
	got := strings.Join(tool(t, c, "getOpenEditors", nil).Texts(), "")
	shown("getOpenEditors", got)
	if !strings.Contains(got, "main.go") {
		t.Errorf("getOpenEditors lost main.go: %s", got)
	}
	got = strings.Join(tool(t, c, "getDiagnostics", nil).Texts(), "")
	shown("getDiagnostics", got)
	if !strings.Contains(got, "main is unused") {
		t.Errorf("getDiagnostics lost main.go's: %s", got)
	}
	for _, f := range secretFiles {
		shown("getDiagnostics "+f, strings.Join(tool(t, c, "getDiagnostics", map[string]any{"uri": "file://" + f}).Texts(), ""))
	}

	// /mcp: the editor's language server (lspRequest) answers every request with a place in
	// the link; it must never be asked about an excluded file.
	call := connectTools(t, r)
	s.answer("lspRequest", func(_ context.Context, raw json.RawMessage) (any, error) {
		var req struct {
			FilePath string `json:"filePath"`
		}
		json.Unmarshal(raw, &req)
		if req.FilePath != main {
			t.Errorf("the editor's language server was asked about %s", req.FilePath)
		}
		return map[string]any{"encoding": "utf-16", "server": "fake-ls", "result": []any{map[string]any{
			"uri": "file://" + link, "range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 3}}}}}, nil
	})
	for _, f := range secretFiles {
		for _, tl := range []string{"definition", "references", "hover"} {
			text, isErr := call(tl, map[string]any{"path": filepath.Base(f), "line": 1, "symbol": "nothere"})
			if !isErr || strings.Contains(text, secret) || !strings.Contains(text, "excluded from sharing") {
				t.Errorf("/mcp %s on %s: %v %q, want refused as excluded", tl, filepath.Base(f), isErr, text)
			}
		}
	}
	text, isErr := call("definition", map[string]any{"path": "main.go", "line": 3, "symbol": "main"})
	if isErr || strings.Contains(text, secret) || !strings.Contains(text, "settings.txt:1:1: (excluded from sharing: not shown)") {
		t.Errorf("/mcp definition answered in the link: %v %q", isErr, text)
	}
}
