package nvimtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/seltable"
)

// textJSON decodes the JSON in a tool result's first text block.
func textJSON(t *testing.T, r toolResult, v any) {
	t.Helper()
	if r.IsError || len(r.Content) == 0 {
		t.Fatalf("tool result %q (isError %v)", r.texts(), r.IsError)
	}
	if err := json.Unmarshal([]byte(r.Content[0].Text), v); err != nil {
		t.Fatalf("%v: %s", err, r.Content[0].Text)
	}
}

// openFile with startText/endText selects the range the bridge found; the
// Visual selection then reaches Claude as selection_changed.
func TestOpenFileSelects(t *testing.T) {
	e := newEnv(t, nil, true)
	path := e.file(t, "a.txt", "one\ntwo\nthree\n")
	e.c.tool(t, "openFile", map[string]any{"filePath": path, "startText": "two", "endText": "three"})
	e.waitSelection(t, seltable.Sel(path, "two\nthree", 1, 0, 2, 5))
	if got := e.n.str(t, `return vim.api.nvim_buf_get_name(0)`); got != path {
		t.Fatalf("current buffer %q, want %q", got, path)
	}
}

// Spec: "makeFrontmost (boolean, default: true): Make the file the active
// editor tab"; false opens without taking focus and returns details.
func TestOpenFileNotFrontmost(t *testing.T) {
	e := newEnv(t, nil, true)
	here := e.file(t, "here.txt", "x\n")
	there := e.file(t, "there.go", "package main\n\nfunc main() {}\n")
	e.edit(t, here)
	r := e.c.tool(t, "openFile", map[string]any{"filePath": there, "makeFrontmost": false})
	var got map[string]any
	textJSON(t, r, &got)
	if got["success"] != true || got["lineCount"] != float64(3) || got["languageId"] != "go" {
		t.Fatalf("openFile result %v", got)
	}
	if cur := e.n.str(t, `return vim.api.nvim_buf_get_name(0)`); cur != here {
		t.Fatalf("focus moved to %q", cur)
	}
	var listed bool
	e.n.luaInto(t, &listed, `local b = require('claude-ide-bridge.files').find(...) return b ~= nil and vim.bo[b].buflisted`, there)
	if !listed {
		t.Fatal("the file was not opened")
	}
}

func TestOpenEditorsDirtyAndSave(t *testing.T) {
	e := newEnv(t, nil, true)
	a := e.file(t, "a.txt", "a\n")
	b := e.file(t, "b.txt", "b\n")
	e.edit(t, a)
	e.edit(t, b)
	e.n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, -1, false, {"b2"})`)

	var open struct {
		Tabs []struct {
			URI      string `json:"uri"`
			IsActive bool   `json:"isActive"`
			IsDirty  bool   `json:"isDirty"`
			Label    string `json:"label"`
		} `json:"tabs"`
	}
	textJSON(t, e.c.tool(t, "getOpenEditors", map[string]any{}), &open)
	got := map[string][2]bool{}
	for _, tab := range open.Tabs {
		got[tab.Label] = [2]bool{tab.IsActive, tab.IsDirty}
	}
	want := map[string][2]bool{"a.txt": {false, false}, "b.txt": {true, true}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("getOpenEditors %+v, want {active, dirty} %v", open.Tabs, want)
	}

	var dirty map[string]any
	textJSON(t, e.c.tool(t, "checkDocumentDirty", map[string]any{"filePath": b}), &dirty)
	if dirty["success"] != true || dirty["isDirty"] != true {
		t.Fatalf("checkDocumentDirty %v", dirty)
	}
	var notOpen map[string]any
	textJSON(t, e.c.tool(t, "checkDocumentDirty", map[string]any{"filePath": filepath.Join(e.proj, "none.txt")}), &notOpen)
	if notOpen["success"] != false {
		t.Fatalf("checkDocumentDirty of a file not open: %v", notOpen)
	}

	var saved map[string]any
	textJSON(t, e.c.tool(t, "saveDocument", map[string]any{"filePath": b}), &saved)
	if saved["success"] != true || saved["saved"] != true {
		t.Fatalf("saveDocument %v", saved)
	}
	if got := harness.FileText(b); got != "b2\n" {
		t.Fatalf("b.txt after saveDocument: %q", got)
	}
}

// Facts: getDiagnostics result "[{uri, diagnostics:[{message, severity, range,
// source?, code?}]}], 0-based. Return uri exactly as asked".
func TestGetDiagnostics(t *testing.T) {
	e := newEnv(t, nil, true)
	path := e.file(t, "a b.txt", "one\ntwo\n")
	e.edit(t, path)
	e.n.lua(t, `local ns = vim.api.nvim_create_namespace('t')
		vim.diagnostic.set(ns, 0, {
			{lnum = 1, col = 1, end_lnum = 1, end_col = 3, severity = vim.diagnostic.severity.WARN, message = "w", source = "lint", code = "W1"},
			{lnum = 0, col = 0, severity = vim.diagnostic.severity.HINT, message = "h"},
		})`)
	uri := "file://" + path // raw, unencoded: the space stays
	var got []struct {
		URI         string `json:"uri"`
		Diagnostics []struct {
			Message  string `json:"message"`
			Severity string `json:"severity"`
			Range    struct {
				Start pos `json:"start"`
				End   pos `json:"end"`
			} `json:"range"`
			Source string `json:"source"`
			Code   string `json:"code"`
		} `json:"diagnostics"`
	}
	textJSON(t, e.c.tool(t, "getDiagnostics", map[string]any{"uri": uri}), &got)
	if len(got) != 1 || got[0].URI != uri || len(got[0].Diagnostics) != 2 {
		t.Fatalf("getDiagnostics %+v", got)
	}
	byMsg := map[string]int{}
	for i, d := range got[0].Diagnostics {
		byMsg[d.Message] = i
	}
	w := got[0].Diagnostics[byMsg["w"]]
	if w.Severity != "Warning" || w.Range.Start != (pos{Line: 1, Character: 1}) || w.Range.End != (pos{Line: 1, Character: 3}) || w.Source != "lint" || w.Code != "W1" {
		t.Fatalf("warning diagnostic %+v", w)
	}
	if h := got[0].Diagnostics[byMsg["h"]]; h.Severity != "Hint" || h.Range.Start != (pos{Line: 0, Character: 0}) {
		t.Fatalf("hint diagnostic %+v", h)
	}
}

// Issue: "getWorkspaceFolders is answered by the bridge from the handshake
// (send cwd as workspace folder, and workspaceFoldersChanged on DirChanged)".
func TestWorkspaceFolders(t *testing.T) {
	e := newEnv(t, nil, true)
	var got struct {
		Folders []struct {
			Path string `json:"path"`
		} `json:"folders"`
	}
	textJSON(t, e.c.tool(t, "getWorkspaceFolders", map[string]any{}), &got)
	if len(got.Folders) != 1 || got.Folders[0].Path != e.proj {
		t.Fatalf("getWorkspaceFolders %+v, want %s", got, e.proj)
	}
	sub := filepath.Join(e.proj, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	e.n.ex(t, "cd sub")
	waitFor(t, "the lock file to name sub", func() bool {
		_, l := readLock(t, e.cfg)
		return reflect.DeepEqual(l.WorkspaceFolders, []string{sub})
	})
}
