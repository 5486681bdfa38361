package ide

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// ToolResult is an MCP CallToolResult.
type ToolResult struct {
	Content []Content `json:"content"`
	IsError bool      `json:"isError,omitempty"`
}

// ErrUnsupported marks a tool the editor cannot serve.
var ErrUnsupported = errors.New("not supported")

func text(s string) *ToolResult { return &ToolResult{Content: []Content{{Type: "text", Text: s}}} }

func jsonText(v any) (*ToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return text(string(b)), nil
}

// toolError is a tool-level failure: the call succeeded, the tool did not (MCP isError).
func toolError(format string, args ...any) *ToolResult {
	r := text(fmt.Sprintf(format, args...))
	r.IsError = true
	return r
}

// CallTool runs one tools/call for client id. Protocol errors (unknown tool, bad arguments, a
// refused openDiff) are returned as *jsonrpc.Error; failures of the tool itself (a missing file,
// an unsupported capability, an editor error) as a ToolResult with IsError.
func (m *Model) CallTool(ctx context.Context, id ClientID, name string, args json.RawMessage) (*ToolResult, error) {
	t := findTool(name)
	if t == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown tool %q", name)
	}
	m.observe(id, name, args) // before the capability check: the calls mark a turn whatever the editor serves
	m.watchWrites(id, name, args)
	if !t.listed(m.info.Caps) {
		return toolError("%s is not supported by %s", name, m.info.Name), nil
	}
	res, err := t.call(m, ctx, id, name, args)
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &rpcErr), errors.Is(err, context.Canceled):
		return nil, err
	case errors.Is(err, context.DeadlineExceeded):
		return toolError("%s: %s did not answer in time", name, m.info.Name), nil
	}
	return toolError("%s: %v", name, err), nil
}

// The tools' handlers, one per row of the tool table (tooltable.go): args are tools/call's
// arguments, name the tool's name (two tools share toolDocument).
func (m *Model) toolOpenDiff(ctx context.Context, id ClientID, name string, args json.RawMessage) (*ToolResult, error) {
	var a OpenDiffArgs
	if err := jsonrpc.UnmarshalParams(args, &a); err != nil {
		return nil, err
	}
	if err := cmp.Or(jsonrpc.Required(a.OldFilePath != "", "old_file_path"), jsonrpc.Required(a.TabName != "", "tab_name")); err != nil {
		return nil, err
	}
	a.NewFilePath = cmp.Or(a.NewFilePath, a.OldFilePath)
	path, err := m.absPath(a.OldFilePath)
	if err != nil {
		return nil, err
	}
	a.OldFilePath = path
	if a.NewFilePath, err = m.cleanNewPath(a.NewFilePath); err != nil {
		return nil, err
	}
	if r := notRegular(path); r != nil {
		return r, nil
	}
	content, err := m.OpenDiff(ctx, id, a)
	if err != nil {
		return nil, err
	}
	return &ToolResult{Content: content}, nil
}

func (m *Model) toolCloseTab(ctx context.Context, id ClientID, name string, args json.RawMessage) (*ToolResult, error) {
	var a struct {
		TabName string `json:"tab_name"`
	}
	if err := jsonrpc.UnmarshalParams(args, &a); err != nil {
		return nil, err
	}
	if err := jsonrpc.Required(a.TabName != "", "tab_name"); err != nil {
		return nil, err
	}
	return &ToolResult{Content: m.CloseTab(id, a.TabName)}, nil
}

func (m *Model) toolCloseAllDiffTabs(ctx context.Context, id ClientID, name string, args json.RawMessage) (*ToolResult, error) {
	return &ToolResult{Content: m.CloseAllDiffTabs(id)}, nil
}

func (m *Model) toolCurrentSelection(ctx context.Context, id ClientID, name string, args json.RawMessage) (*ToolResult, error) {
	if m.info.TrackSelection || !m.info.Caps.CurrentSelection {
		return jsonText(selectionResult(m.LatestSelection(), "No active editor found"))
	}
	ectx, cancel := m.editorCtx(ctx)
	defer cancel()
	s, err := m.editor.CurrentSelection(ectx)
	if err != nil {
		return nil, err
	}
	if s != nil && !m.shared(s.FilePath) {
		s = nil
	}
	if s != nil && s.FileURL == "" {
		s.FileURL = FileURL(s.FilePath)
	}
	return jsonText(selectionResult(s, "No active editor found"))
}

func (m *Model) toolLatestSelection(ctx context.Context, id ClientID, name string, args json.RawMessage) (*ToolResult, error) {
	return jsonText(selectionResult(m.LatestSelection(), "No selection available"))
}

func (m *Model) toolExecuteCode(ctx context.Context, id ClientID, name string, args json.RawMessage) (*ToolResult, error) {
	var a struct {
		Code string `json:"code"`
	}
	if err := jsonrpc.UnmarshalParams(args, &a); err != nil {
		return nil, err
	}
	if err := jsonrpc.Required(a.Code != "", "code"); err != nil {
		return nil, err
	}
	ectx, cancel := context.WithTimeout(ctx, 10*m.EditorTimeout)
	defer cancel()
	content, err := m.editor.ExecuteCode(ectx, a.Code)
	if err != nil {
		return nil, err
	}
	return &ToolResult{Content: content}, nil
}

// absPath makes a tool's path absolute: a relative path is taken against the first workspace
// folder (where the user's project is), never the bridge's cwd.
func (m *Model) absPath(p string) (string, error) {
	if p == "" {
		return "", jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: empty path")
	}
	p = strings.TrimPrefix(p, "file://")
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	folders := m.Folders()
	if len(folders) == 0 {
		return "", fmt.Errorf("relative path %q and no workspace folder to resolve it against", p)
	}
	return filepath.Join(folders[0], p), nil
}

func (m *Model) toolWorkspaceFolders(ctx context.Context, id ClientID, name string, args json.RawMessage) (*ToolResult, error) {
	folders := m.Folders()
	type folder struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
		Path string `json:"path"`
	}
	out := struct {
		Success  bool     `json:"success"`
		Folders  []folder `json:"folders"`
		RootPath string   `json:"rootPath"`
	}{Success: true, Folders: []folder{}}
	for _, f := range folders {
		out.Folders = append(out.Folders, folder{filepath.Base(f), FileURL(f), f})
	}
	if len(folders) > 0 {
		out.RootPath = folders[0]
	}
	return jsonText(out)
}

func (m *Model) toolOpenEditors(ctx context.Context, id ClientID, name string, args json.RawMessage) (*ToolResult, error) {
	eds, err := m.OpenEditors(ctx)
	if err != nil {
		return nil, err
	}
	type tab struct {
		URI        string `json:"uri"`
		IsActive   bool   `json:"isActive"`
		Label      string `json:"label"`
		LanguageID string `json:"languageId"`
		IsDirty    bool   `json:"isDirty"`
	}
	out := struct {
		Tabs []tab `json:"tabs"`
	}{Tabs: []tab{}}
	for _, e := range eds {
		out.Tabs = append(out.Tabs, tab{FileURL(e.FilePath), e.IsActive, e.Label, e.LanguageID, e.IsDirty})
	}
	return jsonText(out)
}

// OpenEditors is what getOpenEditors shares of the editor's open files: none while paused or
// when the editor does not serve the list, never an excluded file; labels and language ids
// filled in.
func (m *Model) OpenEditors(ctx context.Context) ([]OpenEditor, error) {
	if !m.info.Caps.OpenEditors {
		return nil, nil
	}
	ectx, cancel := m.editorCtx(ctx)
	defer cancel()
	eds, err := m.editor.OpenEditors(ectx)
	if err != nil {
		return nil, err
	}
	out := make([]OpenEditor, 0, len(eds))
	for _, e := range eds {
		if !m.shared(e.FilePath) {
			continue
		}
		e.Label = cmp.Or(e.Label, filepath.Base(e.FilePath))
		e.LanguageID = cmp.Or(e.LanguageID, LanguageID(e.FilePath))
		out = append(out, e)
	}
	return out, nil
}

func (m *Model) toolDocument(ctx context.Context, id ClientID, tool string, args json.RawMessage) (*ToolResult, error) {
	var a struct {
		FilePath string `json:"filePath"`
	}
	if err := jsonrpc.UnmarshalParams(args, &a); err != nil {
		return nil, err
	}
	if err := jsonrpc.Required(a.FilePath != "", "filePath"); err != nil {
		return nil, err
	}
	path, err := m.absPath(a.FilePath)
	if err != nil {
		return nil, err
	}
	ectx, cancel := m.editorCtx(ctx)
	defer cancel()
	var st DocState
	if tool == "saveDocument" {
		st, err = m.editor.Save(ectx, path)
	} else {
		st, err = m.editor.CheckDirty(ectx, path)
	}
	if err != nil {
		return nil, err
	}
	if !st.IsOpen {
		return jsonText(map[string]any{"success": false, "message": "Document not open: " + a.FilePath})
	}
	if tool == "saveDocument" {
		msg := "Document saved successfully"
		if !st.Saved {
			msg = "Document could not be saved"
		}
		return jsonText(map[string]any{"success": st.Saved, "filePath": path, "saved": st.Saved, "message": msg})
	}
	return jsonText(map[string]any{"success": true, "filePath": path, "isDirty": st.IsDirty, "isUntitled": st.IsUntitled})
}

func (m *Model) toolDiagnostics(ctx context.Context, id ClientID, name string, args json.RawMessage) (*ToolResult, error) {
	var a struct {
		URI string `json:"uri"`
	}
	if err := jsonrpc.UnmarshalParams(args, &a); err != nil {
		return nil, err
	}
	uri, path := a.URI, ""
	if uri != "" {
		var err error
		if path, err = m.absPath(uri); err != nil {
			return nil, err
		}
	}
	ectx, cancel := m.editorCtx(ctx)
	defer cancel()
	files, err := m.editor.Diagnostics(ectx, path)
	if err != nil {
		return nil, err
	}
	// The snapshot, its JSON and the result's copy of it are held until the call returns:
	// counted, so that parallel calls over a server's many diagnostics are refused, not fatal
	// (issue 35 item 5).
	held := m.budget().NewGrant()
	defer held.Release()
	if err := held.Add(3*diagnosticsSize(files), "the diagnostics of "+strconv.Itoa(len(files))+" files"); err != nil {
		return toolError("%v", err), nil
	}
	type entry struct {
		URI         string       `json:"uri"`
		Diagnostics []Diagnostic `json:"diagnostics"`
	}
	out := []entry{}
	for _, f := range files {
		if !m.shared(f.FilePath) {
			continue
		}
		u := FileURL(f.FilePath)
		if uri != "" && filepath.Clean(f.FilePath) == path {
			u = uri // the CLI matches on the uri it sent: return it exactly as asked
		}
		ds := f.Diagnostics
		if ds == nil {
			ds = []Diagnostic{}
		}
		out = append(out, entry{u, ds})
	}
	return jsonText(out)
}

// diagnosticsSize is about what files take in JSON.
func diagnosticsSize(files []FileDiagnostics) int64 {
	n := int64(2)
	for _, f := range files {
		n += 40 + 2*int64(len(f.FilePath))
		for _, d := range f.Diagnostics {
			n += 140 + int64(len(d.Message)+len(d.Source))
		}
	}
	return n
}

// OpenFileArgs are openFile's arguments.
type OpenFileArgs struct {
	FilePath          string `json:"filePath"`
	Preview           bool   `json:"preview"`
	StartText         string `json:"startText"`
	EndText           string `json:"endText"`
	SelectToEndOfLine bool   `json:"selectToEndOfLine"`
	MakeFrontmost     bool   `json:"makeFrontmost"`
}

// maxSearch bounds how much of a file openFile reads to find startText.
const maxSearch = 64 << 20

func (m *Model) toolOpenFile(ctx context.Context, id ClientID, name string, args json.RawMessage) (*ToolResult, error) {
	a := OpenFileArgs{MakeFrontmost: true}
	if err := jsonrpc.UnmarshalParams(args, &a); err != nil {
		return nil, err
	}
	if err := jsonrpc.Required(a.FilePath != "", "filePath"); err != nil {
		return nil, err
	}
	path, err := m.absPath(a.FilePath)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return toolError("File not found: %s", path), nil
	}
	if r := notRegular(path); r != nil {
		return r, nil
	}
	p := OpenFileParams{FilePath: path, Preview: a.Preview, MakeFrontmost: a.MakeFrontmost}
	lineCount := 0
	if (a.StartText != "" || !a.MakeFrontmost) && fi.Size() <= maxSearch {
		// The text is held, and counted in the memory budget, only until the range and the line
		// count are found: not while the editor opens the file (issue 35 item 5).
		held := m.budget().NewGrant()
		content, err := userfile.ReadText(held, path, maxSearch)
		switch {
		case errors.Is(err, membudget.ErrOver):
			held.Release()
			return toolError("%s is not opened now: %v", path, err), nil
		case err == nil:
			if a.StartText != "" {
				p.Selection = FindRange(content, a.StartText, a.EndText, a.SelectToEndOfLine, m.info.Encoding)
			}
			lineCount = strings.Count(content, "\n") + 1
		} // another error: opened without a selection, as for a file too big to search
		held.Release()
	}
	ectx, cancel := m.editorCtx(ctx)
	defer cancel()
	res, err := m.editor.OpenFile(ectx, p)
	if err != nil {
		return nil, err
	}
	if a.MakeFrontmost {
		return text("Opened file: " + path), nil
	}
	res.LanguageID = cmp.Or(res.LanguageID, LanguageID(path))
	res.LineCount = cmp.Or(res.LineCount, lineCount)
	return jsonText(map[string]any{"success": true, "filePath": path, "languageId": res.LanguageID, "lineCount": res.LineCount})
}
