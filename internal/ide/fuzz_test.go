package ide_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// fuzzEditor answers every request at once; a shown diff is decided right away (accepted when
// its contents are even in length, else rejected) so openDiff never blocks the fuzzer.
type fuzzEditor struct{ m *ide.Model }

func (e *fuzzEditor) OpenFile(context.Context, ide.OpenFileParams) (ide.OpenFileResult, error) {
	return ide.OpenFileResult{}, nil
}
func (e *fuzzEditor) ShowDiff(_ context.Context, p ide.ShowDiffParams) error {
	if p.NewContents.EncodedLen()%2 == 0 {
		return e.m.Decide(p.Seq, ide.Decision{Accept: true, Text: p.NewContents})
	}
	go e.m.Decide(p.Seq, ide.Decision{})
	return nil
}
func (e *fuzzEditor) CloseDiff(context.Context, string) error             { return nil }
func (e *fuzzEditor) SetBufferText(context.Context, string, string) error { return nil }
func (e *fuzzEditor) OpenEditors(context.Context) ([]ide.OpenEditor, error) {
	return []ide.OpenEditor{{FilePath: "/w/a.go"}}, nil
}
func (e *fuzzEditor) CurrentSelection(context.Context) (*ide.Selection, error) { return nil, nil }
func (e *fuzzEditor) CheckDirty(context.Context, string) (ide.DocState, error) {
	return ide.DocState{IsOpen: true}, nil
}
func (e *fuzzEditor) Save(context.Context, string) (ide.DocState, error) {
	return ide.DocState{IsOpen: true, Saved: true}, nil
}
func (e *fuzzEditor) Diagnostics(context.Context, string) ([]ide.FileDiagnostics, error) {
	return nil, nil
}
func (e *fuzzEditor) ExecuteCode(context.Context, string) ([]ide.Content, error) { return nil, nil }

var fuzzCaps = ide.Capabilities{OpenFile: true, ShowDiff: true, CanCloseTabs: true, OpenEditors: true,
	CurrentSelection: true, CheckDirty: true, Save: true, Diagnostics: true, ExecuteCode: true, SetBufferText: true}

// FuzzToolArgs: a tools/call is Claude-controlled input. Whatever the name and arguments, CallTool
// must not panic and must answer with exactly one of a result or a *jsonrpc.Error (spec 000: tool
// results are MCP content; protocol errors are JSON-RPC errors).
func FuzzToolArgs(f *testing.F) {
	dir := f.TempDir()
	seeds := []struct{ name, args string }{
		{"openFile", `{"filePath":"a.go","startText":"x","endText":"y","selectToEndOfLine":true,"makeFrontmost":false}`},
		{"openFile", `{"filePath":7}`},
		{"openFile", `{"filePath":"."}`},
		{"openDiff", `{"old_file_path":"a.txt","new_file_path":"a.txt","new_file_contents":"hi\n","tab_name":"T"}`},
		{"openDiff", `{"old_file_path":"/x","new_file_contents":"odd","tab_name":""}`},
		{"openDiff", `[]`},
		{"close_tab", `{"tab_name":"T"}`},
		{"closeAllDiffTabs", `{}`},
		{"getCurrentSelection", `null`},
		{"getLatestSelection", ``},
		{"getOpenEditors", `{}`},
		{"getWorkspaceFolders", `{}`},
		{"getDiagnostics", `{"uri":"file:///w/a.go"}`},
		{"getDiagnostics", `{"uri":{}}`},
		{"checkDocumentDirty", `{"filePath":"/w/a.go"}`},
		{"saveDocument", `{"filePath":""}`},
		{"executeCode", `{"code":"print(1)"}`},
		{"nope", `{}`},
		{"", `"str"`},
	}
	for _, s := range seeds {
		f.Add(s.name, []byte(s.args))
	}
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		ed := &fuzzEditor{}
		m := ide.New(ed, ide.EditorInfo{Name: "Fuzz", Caps: fuzzCaps}, []string{dir}, ide.Events{}, nil)
		ed.m = m
		id := m.Connect(discard{})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		res, err := m.CallTool(ctx, id, name, json.RawMessage(args))
		if err != nil {
			var e *jsonrpc.Error
			if !errors.As(err, &e) {
				t.Fatalf("CallTool(%q, %q): error %T %v is not a *jsonrpc.Error", name, args, err, err)
			}
			if res != nil {
				t.Fatalf("CallTool(%q, %q): both a result and an error", name, args)
			}
			return
		}
		if res == nil {
			t.Fatalf("CallTool(%q, %q): neither result nor error", name, args)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("CallTool(%q, %q): result does not encode: %v", name, args, err)
		}
		m.Disconnect(id)
		m.Close()
	})
}

type discard struct{}

func (discard) Send([]byte)       {}
func (discard) SendLatest([]byte) {}
