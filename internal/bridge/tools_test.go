package bridge_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// Spec 000 "Available MCP Tools": "The VS Code extension registers 12 tools", with these inputs.
var specTools = map[string]string{
	"openFile":            "endText,filePath,makeFrontmost,preview,selectToEndOfLine,startText",
	"openDiff":            "new_file_contents,new_file_path,old_file_path,tab_name",
	"getCurrentSelection": "",
	"getLatestSelection":  "",
	"getOpenEditors":      "",
	"getWorkspaceFolders": "",
	"getDiagnostics":      "uri",
	"checkDocumentDirty":  "filePath",
	"saveDocument":        "filePath",
	"close_tab":           "tab_name",
	"closeAllDiffTabs":    "",
	"executeCode":         "code",
}

type listedTool struct {
	Name        string `json:"name"`
	InputSchema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	} `json:"inputSchema"`
}

func listTools(t *testing.T, c *probe.Client) map[string]listedTool {
	t.Helper()
	var res struct {
		Tools []listedTool `json:"tools"`
	}
	if err := c.Call(testbin.Ctx(t), "tools/list", nil, &res); err != nil {
		t.Fatal(err)
	}
	out := map[string]listedTool{}
	for _, tl := range res.Tools {
		if _, dup := out[tl.Name]; dup {
			t.Errorf("tool %s listed twice", tl.Name)
		}
		out[tl.Name] = tl
	}
	return out
}

func TestToolsList(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	got := listTools(t, connect(t, b))
	if len(got) != 12 {
		t.Errorf("%d tools, want the spec's 12", len(got))
	}
	for name, props := range specTools {
		tl, ok := got[name]
		if !ok {
			t.Errorf("%s missing", name)
			continue
		}
		var names []string
		for p := range tl.InputSchema.Properties {
			names = append(names, p)
		}
		sort.Strings(names)
		if tl.InputSchema.Type != "object" || strings.Join(names, ",") != props {
			t.Errorf("%s: schema type %q properties %v, want object with %q", name, tl.InputSchema.Type, names, props)
		}
	}
}

// An editor that cannot serve a tool does not list it (facts file: the CLI calls the tools it
// needs "by name even if tools/list lacks them"), and a call gets a clear tool error.
func TestToolsListWithoutCapabilities(t *testing.T) {
	t.Parallel()
	b, _ := startWith(t, func(c *bridge.Config) {
		c.Info.Caps.Diagnostics, c.Info.Caps.ExecuteCode = false, false
	})
	c := connect(t, b)
	got := listTools(t, c)
	for _, name := range []string{"getDiagnostics", "executeCode"} {
		if _, ok := got[name]; ok {
			t.Errorf("%s listed by an editor without that capability", name)
		}
	}
	if len(got) != 10 {
		t.Errorf("%d tools, want 10", len(got))
	}
	r := tool(t, c, "getDiagnostics", map[string]any{"uri": "file:///tmp/a.go"})
	if !r.IsError || len(r.Content) != 1 || r.Content[0].Text != "getDiagnostics is not supported by Test" {
		t.Errorf("got %+v, want isError %q", r, "getDiagnostics is not supported by Test")
	}
}

// Each tool's result shape, as spec 000 and the facts file give it. Keys are compared exactly;
// optional keys are listed separately.
func TestToolResultShapes(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	c := connect(t, b)
	folder := b.Model.Folders()[0]
	file := filepath.Join(folder, "main.go")
	if err := os.WriteFile(file, []byte("package main\n\nfunc main() {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b.Model.SelectionChanged(ide.Selection{Text: "pack", FilePath: file, Selection: ide.SelectionPos{End: ide.Position{Character: 4}}})

	selKeys := "fileUrl?,filePath,selection,success,text" // fileUrl: the selection_changed field
	tests := []struct {
		tool string
		args map[string]any
		want func(t *testing.T, r *probe.ToolResult)
	}{
		// "When makeFrontmost=true, returns simple message: Opened file: /path/to/file.js"
		{"openFile", map[string]any{"filePath": file}, wantText("Opened file: " + file)},
		{"openFile", map[string]any{"filePath": file, "makeFrontmost": true}, wantText("Opened file: " + file)},
		// "When makeFrontmost=false, returns detailed JSON" {success, filePath, languageId, lineCount}
		{"openFile", map[string]any{"filePath": file, "makeFrontmost": false}, wantObject("filePath,languageId,lineCount,success", map[string]any{"success": true, "filePath": file, "languageId": "go", "lineCount": 3.0})},
		{"getCurrentSelection", nil, wantObject(selKeys, map[string]any{"success": true, "text": "pack", "filePath": file})},
		{"getLatestSelection", nil, wantObject(selKeys, map[string]any{"success": true, "text": "pack", "filePath": file})},
		// "{\"tabs\": [{\"uri\": ..., \"isActive\": true, \"label\": ..., \"languageId\": ..., \"isDirty\": false}]}"
		{"getOpenEditors", nil, func(t *testing.T, r *probe.ToolResult) {
			v := textJSON(t, r)
			tabs, _ := v.(map[string]any)["tabs"].([]any)
			if keys(v) != "tabs" || len(tabs) != 1 || keys(tabs[0]) != "isActive,isDirty,label,languageId,uri" {
				t.Errorf("got %s", r.Content[0].Text)
			}
			if tab := tabs[0].(map[string]any); tab["uri"] != "file:///w/a.go" || tab["label"] != "a.go" {
				t.Errorf("got %s", r.Content[0].Text)
			}
		}},
		// {success, folders: [{name, uri, path}], rootPath}
		{"getWorkspaceFolders", nil, func(t *testing.T, r *probe.ToolResult) {
			v := textJSON(t, r)
			m, _ := v.(map[string]any)
			folders, _ := m["folders"].([]any)
			if keys(v) != "folders,rootPath,success" || len(folders) != 1 || keys(folders[0]) != "name,path,uri" || m["rootPath"] != folder {
				t.Fatalf("got %s", r.Content[0].Text)
			}
			if f := folders[0].(map[string]any); f["path"] != folder || f["uri"] != "file://"+folder || f["name"] != filepath.Base(folder) {
				t.Errorf("got %s", r.Content[0].Text)
			}
		}},
		// Facts file: "Return uri exactly as asked (not percent-encoded)."
		{"getDiagnostics", map[string]any{"uri": "file:///tmp/a b.go"}, wantDiagnostics("file:///tmp/a b.go")},
		{"getDiagnostics", map[string]any{}, wantDiagnostics("file:///w/a.go")},
		// {success, filePath, isDirty, isUntitled}, or {success: false, message: "Document not open: ..."}
		{"checkDocumentDirty", map[string]any{"filePath": "/w/a.go"}, wantObject("filePath,isDirty,isUntitled,success", map[string]any{"success": true, "isDirty": true, "isUntitled": false})},
		{"checkDocumentDirty", map[string]any{"filePath": "/w/b.go"}, wantObject("message,success", map[string]any{"success": false, "message": "Document not open: /w/b.go"})},
		// {success, filePath, saved, message}
		{"saveDocument", map[string]any{"filePath": "/w/a.go"}, wantObject("filePath,message,saved,success", map[string]any{"success": true, "saved": true, "message": "Document saved successfully"})},
		{"saveDocument", map[string]any{"filePath": "/w/b.go"}, wantObject("message,success", map[string]any{"success": false, "message": "Document not open: /w/b.go"})},
		// "Returns {content: [{type: "text", text: "TAB_CLOSED"}]}"
		{"close_tab", map[string]any{"tab_name": "nothing"}, wantText("TAB_CLOSED")},
		// "Returns {content: [{type: "text", text: "CLOSED_${count}_DIFF_TABS"}]}"
		{"closeAllDiffTabs", nil, wantText("CLOSED_0_DIFF_TABS")},
		{"executeCode", map[string]any{"code": "1+1"}, wantText("ran 1+1")},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r := tool(t, c, tt.tool, tt.args)
			if r.IsError {
				t.Fatalf("isError: %+v", r)
			}
			tt.want(t, r)
		})
	}

	// Spec 000: getLatestSelection without one is {success: false, message: "No selection
	// available"}; getCurrentSelection "when no active editor" says "No active editor found".
	b2, _ := start(t)
	c2 := connect(t, b2)
	wantObject("message,success", map[string]any{"success": false, "message": "No selection available"})(t, tool(t, c2, "getLatestSelection", nil))
	wantObject("message,success", map[string]any{"success": false, "message": "No active editor found"})(t, tool(t, c2, "getCurrentSelection", nil))
}

func wantText(want string) func(*testing.T, *probe.ToolResult) {
	return func(t *testing.T, r *probe.ToolResult) {
		t.Helper()
		if len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != want {
			t.Errorf("got %+v, want one text block %q", r.Content, want)
		}
	}
}

// wantObject checks the text is a JSON object with exactly keys ("k?" marks an optional key)
// and the given values.
func wantObject(keyList string, values map[string]any) func(*testing.T, *probe.ToolResult) {
	return func(t *testing.T, r *probe.ToolResult) {
		t.Helper()
		v := textJSON(t, r)
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("not an object: %s", r.Content[0].Text)
		}
		allowed := map[string]bool{}
		for _, k := range strings.Split(keyList, ",") {
			optional := strings.HasSuffix(k, "?")
			k = strings.TrimSuffix(k, "?")
			allowed[k] = true
			if _, ok := m[k]; !ok && !optional {
				t.Errorf("key %q missing: %s", k, r.Content[0].Text)
			}
		}
		for k := range m {
			if !allowed[k] {
				t.Errorf("unexpected key %q: %s", k, r.Content[0].Text)
			}
		}
		for k, want := range values {
			if m[k] != want {
				t.Errorf("%s = %#v, want %#v", k, m[k], want)
			}
		}
	}
}

// Facts file: "[{uri, diagnostics:[{message, severity, range:{start:{line,character},
// end:{line,character}}, source?, code?}]}]".
func wantDiagnostics(uri string) func(*testing.T, *probe.ToolResult) {
	return func(t *testing.T, r *probe.ToolResult) {
		t.Helper()
		var got []struct {
			URI         string            `json:"uri"`
			Diagnostics []json.RawMessage `json:"diagnostics"`
		}
		if err := json.Unmarshal([]byte(r.Content[0].Text), &got); err != nil || len(got) != 1 {
			t.Fatalf("got %s", r.Content[0].Text)
		}
		if got[0].URI != uri {
			t.Errorf("uri %q, want %q exactly as asked", got[0].URI, uri)
		}
		var d map[string]any
		json.Unmarshal(got[0].Diagnostics[0], &d)
		rng, _ := d["range"].(map[string]any)
		if keys(d) != "message,range,severity,source" || keys(rng) != "end,start" || keys(rng["start"]) != "character,line" {
			t.Errorf("diagnostic %s", got[0].Diagnostics[0])
		}
	}
}

// Spec 000 openFile: startText/endText select a range. The bridge resolves it in the editor's
// encoding: "character is a 0-based UTF-8 byte offset ... VS Code counts UTF-16 code units".
func TestOpenFileSelectionEncoding(t *testing.T) {
	t.Parallel()
	content := "package x\n// 日本語 start here\n"
	tests := []struct {
		enc  ide.Encoding
		want ide.Range
	}{
		// "// 日本語 " is 3+9+1 bytes, 3+3+1 UTF-16 units.
		{ide.UTF8, ide.Range{Start: ide.Position{Line: 1, Character: 13}, End: ide.Position{Line: 1, Character: 23}}},
		{ide.UTF16, ide.Range{Start: ide.Position{Line: 1, Character: 7}, End: ide.Position{Line: 1, Character: 17}}},
	}
	for _, tt := range tests {
		t.Run(string(tt.enc), func(t *testing.T) {
			b, ed := startWith(t, func(c *bridge.Config) { c.Info.Encoding = tt.enc })
			c := connect(t, b)
			file := filepath.Join(b.Model.Folders()[0], "x.go")
			os.WriteFile(file, []byte(content), 0o600)
			wantText("Opened file: "+file)(t, tool(t, c, "openFile", map[string]any{"filePath": file, "startText": "start", "endText": "here"}))
			p := <-ed.opened
			if p.FilePath != file || p.Selection == nil || *p.Selection != tt.want || !p.MakeFrontmost {
				t.Errorf("editor asked %+v (selection %v), want selection %v", p, p.Selection, tt.want)
			}
		})
	}
}

// Bad calls are JSON-RPC errors, and the message names what was wrong.
func TestProtocolErrors(t *testing.T) {
	t.Parallel()
	b, _ := start(t)
	c := connect(t, b)
	tests := []struct {
		name     string
		call     func(ctx context.Context) error
		code     int
		contains string
	}{
		{"unknown method", func(ctx context.Context) error { return c.Call(ctx, "no/such", nil, nil) }, -32601, "no/such"},
		{"unknown tool", func(ctx context.Context) error { _, err := c.Tool(ctx, "noSuchTool", nil); return err }, -32602, "noSuchTool"},
		{"filePath not a string", func(ctx context.Context) error {
			_, err := c.Tool(ctx, "openFile", map[string]any{"filePath": 5})
			return err
		}, -32602, `"filePath"`},
		{"tab_name not a string", func(ctx context.Context) error {
			_, err := c.Tool(ctx, "close_tab", map[string]any{"tab_name": true})
			return err
		}, -32602, `"tab_name"`},
		{"makeFrontmost not a boolean", func(ctx context.Context) error {
			_, err := c.Tool(ctx, "openFile", map[string]any{"filePath": "/x", "makeFrontmost": "yes"})
			return err
		}, -32602, `"makeFrontmost"`},
		{"tools/call name not a string", func(ctx context.Context) error { return c.Call(ctx, "tools/call", map[string]any{"name": 1}, nil) }, -32602, `"name"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(testbin.Ctx(t))
			if rpcCode(err) != tt.code || !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("got %v, want code %d naming %s", err, tt.code, tt.contains)
			}
		})
	}
}
