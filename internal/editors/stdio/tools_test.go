package stdio_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// TestToolRequests drives each Claude tool that needs the editor and checks the request the
// editor gets ("bridge → editor" in the document) and what Claude gets back.
func TestToolRequests(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		p := s.initParams()
		p["trackSelection"] = false // "When false, Claude's getCurrentSelection is forwarded to the editor"
		c := claude(t, s.initialize(t, p))
		path := s.writeFile(t, "main.go", "package main\n\nfunc main() {\n\tprintln(\"日本\")\n}\n")

		t.Run("openFile", func(t *testing.T) {
			s.reply("openFile", `{"languageId":"golang","lineCount":42}`)
			r := textJSON(t, tool(t, c, "openFile", map[string]any{"filePath": path, "startText": "func main", "endText": "}", "makeFrontmost": false}))
			var got struct {
				FilePath      string
				Preview       bool
				MakeFrontmost bool
				Selection     *struct{ Start, End struct{ Line, Character int } }
			}
			json.Unmarshal(s.next(t, "openFile").Params, &got)
			// "selection is present when Claude asked for startText/endText"; end is exclusive.
			if got.FilePath != path || got.MakeFrontmost || got.Selection == nil ||
				got.Selection.Start.Line != 2 || got.Selection.Start.Character != 0 || got.Selection.End.Line != 4 || got.Selection.End.Character != 1 {
				t.Errorf("openFile request = %+v %+v", got, got.Selection)
			}
			if r["languageId"] != "golang" || r["lineCount"] != float64(42) {
				t.Errorf("openFile result = %v, want the editor's languageId and lineCount", r)
			}
		})
		t.Run("getOpenEditors", func(t *testing.T) {
			s.reply("getOpenEditors", `{"editors":[{"filePath":"`+path+`","isActive":true,"isDirty":true,"languageId":"go","label":"main.go"}]}`)
			r := textJSON(t, tool(t, c, "getOpenEditors", nil))
			s.next(t, "getOpenEditors")
			tabs, _ := r["tabs"].([]any)
			if len(tabs) != 1 || tabs[0].(map[string]any)["uri"] != "file://"+path || tabs[0].(map[string]any)["isDirty"] != true {
				t.Errorf("getOpenEditors = %v", r)
			}
		})
		t.Run("getCurrentSelection", func(t *testing.T) {
			s.reply("getCurrentSelection", `{"selection":{"text":"main","filePath":"`+path+`","selection":{"start":{"line":2,"character":5},"end":{"line":2,"character":9},"isEmpty":false}}}`)
			r := textJSON(t, tool(t, c, "getCurrentSelection", nil))
			s.next(t, "getCurrentSelection")
			if r["success"] != true || r["text"] != "main" || r["fileUrl"] != "file://"+path {
				t.Errorf("getCurrentSelection = %v", r)
			}
			// `{"selection": null}` when no editor is active.
			s.reply("getCurrentSelection", `{"selection":null}`)
			if r := textJSON(t, tool(t, c, "getCurrentSelection", nil)); r["success"] != false {
				t.Errorf("getCurrentSelection with none = %v", r)
			}
		})
		t.Run("checkDocumentDirty", func(t *testing.T) {
			s.reply("checkDocumentDirty", `{"isOpen":true,"isDirty":true,"isUntitled":false}`)
			r := textJSON(t, tool(t, c, "checkDocumentDirty", map[string]any{"filePath": path}))
			if got := s.next(t, "checkDocumentDirty"); !strings.Contains(string(got.Params), `"filePath":"`+path+`"`) {
				t.Errorf("checkDocumentDirty request = %s", got.Params)
			}
			if r["success"] != true || r["isDirty"] != true {
				t.Errorf("checkDocumentDirty = %v", r)
			}
			s.reply("checkDocumentDirty", `{"isOpen":false}`)
			if r := textJSON(t, tool(t, c, "checkDocumentDirty", map[string]any{"filePath": path})); r["success"] != false {
				t.Errorf("checkDocumentDirty of a closed file = %v", r)
			}
		})
		t.Run("saveDocument", func(t *testing.T) {
			s.reply("saveDocument", `{"isOpen":true,"saved":true}`)
			r := textJSON(t, tool(t, c, "saveDocument", map[string]any{"filePath": path}))
			s.next(t, "saveDocument")
			if r["success"] != true || r["saved"] != true {
				t.Errorf("saveDocument = %v", r)
			}
		})
		t.Run("getDiagnostics", func(t *testing.T) {
			s.reply("getDiagnostics", `{"files":[{"filePath":"`+path+`","diagnostics":[{"message":"unused","severity":"Warning","range":{"start":{"line":3,"character":1},"end":{"line":3,"character":8}},"source":"gopls","code":"E1"}]}]}`)
			// The CLI sends the raw path as a file:// URI and matches the answer on it.
			uri := "file://" + path
			r := tool(t, c, "getDiagnostics", map[string]any{"uri": uri})
			if got := s.next(t, "getDiagnostics"); string(got.Params) != `{"filePath":"`+path+`"}` {
				t.Errorf("getDiagnostics request = %s", got.Params)
			}
			var files []struct {
				URI         string `json:"uri"`
				Diagnostics []struct {
					Message, Severity, Source string
					Range                     struct{ Start struct{ Line, Character int } }
				}
			}
			if err := json.Unmarshal([]byte(r.Texts()[0]), &files); err != nil || len(files) != 1 || files[0].URI != uri ||
				len(files[0].Diagnostics) != 1 || files[0].Diagnostics[0].Severity != "Warning" || files[0].Diagnostics[0].Range.Start.Character != 1 {
				t.Errorf("getDiagnostics = %q (%v)", r.Texts(), err)
			}
			// `{}` for all files.
			tool(t, c, "getDiagnostics", map[string]any{})
			if got := s.next(t, "getDiagnostics"); string(got.Params) != `{}` {
				t.Errorf("getDiagnostics for all files: request = %s, want {}", got.Params)
			}
		})
		t.Run("executeCode", func(t *testing.T) {
			s.reply("executeCode", `{"content":[{"type":"text","text":"1"}]}`)
			r := tool(t, c, "executeCode", map[string]any{"code": "print(1)"})
			if got := s.next(t, "executeCode"); string(got.Params) != `{"code":"print(1)"}` {
				t.Errorf("executeCode request = %s", got.Params)
			}
			if r.IsError || !slices.Equal(r.Texts(), []string{"1"}) {
				t.Errorf("executeCode = %+v", r)
			}
		})
	})
}

func TestCapabilitiesFalse(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		p := s.initParams()
		p["capabilities"] = map[string]bool{} // "a missing key means false"
		c := claude(t, s.initialize(t, p))
		path := s.writeFile(t, "a.txt", "a\n")

		var list struct{ Tools []struct{ Name string } }
		if err := c.Call(testbin.Ctx(t), "tools/list", nil, &list); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range list.Tools {
			names = append(names, tl.Name)
		}
		slices.Sort(names)
		want := []string{"closeAllDiffTabs", "close_tab", "getCurrentSelection", "getLatestSelection", "getWorkspaceFolders"}
		if !slices.Equal(names, want) {
			t.Errorf("tools/list without capabilities = %v, want %v", names, want)
		}
		// The CLI calls openDiff, getDiagnostics ... by name even when tools/list lacks them.
		calls := map[string]map[string]any{
			"openFile":           {"filePath": path},
			"openDiff":           {"old_file_path": path, "new_file_path": path, "new_file_contents": "b", "tab_name": "t"},
			"getOpenEditors":     nil,
			"getDiagnostics":     nil,
			"checkDocumentDirty": {"filePath": path},
			"saveDocument":       {"filePath": path},
			"executeCode":        {"code": "1"},
		}
		for name, args := range calls {
			r := tool(t, c, name, args)
			if !r.IsError || len(r.Texts()) != 1 || r.Texts()[0] != name+" is not supported by Scripted" {
				t.Errorf("%s = %+v, want isError %q", name, r, name+" is not supported by Scripted")
			}
		}
		// "The bridge sends a request to the editor only for capabilities the editor declared"
		s.noCall(t, "openFile", "showDiff", "getOpenEditors", "getDiagnostics", "checkDocumentDirty", "saveDocument", "executeCode", "getCurrentSelection")
	})
}

func TestEditorAnswersWithError(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		c := claude(t, s.initialize(t, nil))
		s.answer("getDiagnostics", func(context.Context, json.RawMessage) (any, error) {
			return nil, jsonrpc.Errorf(-32000, "gopls is not running")
		})
		s.answer("saveDocument", func(context.Context, json.RawMessage) (any, error) {
			return nil, &jsonrpc.Error{Code: 7, Message: "disk full", Data: "x"}
		})
		// "its message reaches Claude as the tool error"
		r := tool(t, c, "getDiagnostics", nil)
		if !r.IsError || !strings.Contains(r.Texts()[0], "gopls is not running") {
			t.Errorf("getDiagnostics = %+v, want isError with the editor's message", r)
		}
		r = tool(t, c, "saveDocument", map[string]any{"filePath": s.ws + "/x"})
		if !r.IsError || !strings.Contains(r.Texts()[0], "disk full") {
			t.Errorf("saveDocument = %+v, want isError with the editor's message", r)
		}
	})
}

func TestEditorNeverAnswers(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		// "An editor that does not answer within the bound ... turns into a tool error too; it
		// never blocks the bridge." --editor-timeout sets the bound (showDiff gets 3x).
		s := startSidecar(t, framing, "--editor-timeout", "300ms")
		silent := func(ctx context.Context, _ json.RawMessage) (any, error) {
			<-ctx.Done() // until the connection closes
			return nil, ctx.Err()
		}
		s.answer("getOpenEditors", silent)
		s.answer("showDiff", silent)
		c := claude(t, s.initialize(t, nil))
		path := s.writeFile(t, "a.txt", "a\n")
		diff := openDiff(t, c, path, "b\n", "tab-silent")
		r := tool(t, c, "getOpenEditors", nil)
		if !r.IsError || !strings.Contains(r.Texts()[0], "did not answer in time") {
			t.Errorf("getOpenEditors with a silent editor = %+v", r)
		}
		// Meanwhile the bridge serves everyone else.
		if r := tool(t, c, "getWorkspaceFolders", nil); r.IsError {
			t.Errorf("getWorkspaceFolders = %+v", r)
		}
		if st := s.status(t); st.Clients != 1 {
			t.Errorf("status = %+v", st)
		}
		r = await(t, diff)
		if !r.IsError || !strings.Contains(r.Texts()[0], "did not answer in time") {
			t.Errorf("openDiff with a silent editor = %+v", r)
		}
		if st := s.status(t); len(st.Diffs) != 0 {
			t.Errorf("a diff the editor never showed stays: %+v", st.Diffs)
		}
	})
}
