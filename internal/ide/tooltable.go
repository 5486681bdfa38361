package ide

import (
	"context"
	"encoding/json"
)

// Tool is one row of the tool table: its tools/list entry, the capability it needs and its
// handler. One rule decides the listing: a tool is listed (and can be called) when the editor
// has its capability; a tool without one is always listed.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`

	capability func(Capabilities) bool // nil: needs none
	call       func(m *Model, ctx context.Context, id ClientID, name string, args json.RawMessage) (*ToolResult, error)
}

// listed reports whether an editor with caps serves the tool.
func (t *Tool) listed(caps Capabilities) bool { return t.capability == nil || t.capability(caps) }

// The 12 tools of the VS Code extension, with the spec's input names (spec 000, "Available MCP
// Tools"). Descriptions are the spec's.
var tools = []Tool{
	{"openFile", "Open a file in the editor and optionally select a range of text", json.RawMessage(`{"type":"object","properties":{` +
		`"filePath":{"type":"string","description":"Path to the file to open"},` +
		`"preview":{"type":"boolean","default":false,"description":"Whether to open in preview mode"},` +
		`"startText":{"type":"string","description":"Text pattern to find selection start"},` +
		`"endText":{"type":"string","description":"Text pattern to find selection end"},` +
		`"selectToEndOfLine":{"type":"boolean","default":false,"description":"Extend selection to end of line"},` +
		`"makeFrontmost":{"type":"boolean","default":true,"description":"Make the file the active editor tab"}},` +
		`"required":["filePath"],"additionalProperties":false}`), func(c Capabilities) bool { return c.OpenFile }, (*Model).toolOpenFile},
	{"openDiff", "Open a git diff for the file (blocking operation)", json.RawMessage(`{"type":"object","properties":{` +
		`"old_file_path":{"type":"string","description":"Path to original file"},` +
		`"new_file_path":{"type":"string","description":"Path to new file"},` +
		`"new_file_contents":{"type":"string","description":"Contents of the new file"},` +
		`"tab_name":{"type":"string","description":"Tab name for the diff view"}},` +
		`"required":["old_file_path","new_file_path","new_file_contents","tab_name"],"additionalProperties":false}`), func(c Capabilities) bool { return c.ShowDiff }, (*Model).toolOpenDiff},
	{"getCurrentSelection", "Get the current text selection in the active editor", emptySchema, nil, (*Model).toolCurrentSelection},
	{"getLatestSelection", "Get the most recent text selection (even if not in active editor)", emptySchema, nil, (*Model).toolLatestSelection},
	{"getOpenEditors", "Get information about currently open editors", emptySchema, func(c Capabilities) bool { return c.OpenEditors }, (*Model).toolOpenEditors},
	{"getWorkspaceFolders", "Get all workspace folders currently open in the IDE", emptySchema, nil, (*Model).toolWorkspaceFolders},
	{"getDiagnostics", "Get language diagnostics from the editor", json.RawMessage(`{"type":"object","properties":{` +
		`"uri":{"type":"string","description":"File URI to get diagnostics for. If not provided, gets diagnostics for all files."}},"additionalProperties":false}`), func(c Capabilities) bool { return c.Diagnostics }, (*Model).toolDiagnostics},
	{"checkDocumentDirty", "Check if a document has unsaved changes (is dirty)", json.RawMessage(`{"type":"object","properties":{` +
		`"filePath":{"type":"string","description":"Path to the file to check"}},"required":["filePath"],"additionalProperties":false}`), func(c Capabilities) bool { return c.CheckDirty }, (*Model).toolDocument},
	{"saveDocument", "Save a document with unsaved changes", json.RawMessage(`{"type":"object","properties":{` +
		`"filePath":{"type":"string","description":"Path to the file to save"}},"required":["filePath"],"additionalProperties":false}`), func(c Capabilities) bool { return c.Save }, (*Model).toolDocument},
	{"close_tab", "Close a diff tab by name", json.RawMessage(`{"type":"object","properties":{` +
		`"tab_name":{"type":"string","description":"The tab_name of the diff to close"}},"required":["tab_name"],"additionalProperties":false}`), nil, (*Model).toolCloseTab},
	{"closeAllDiffTabs", "Close all diff tabs in the editor", emptySchema, nil, (*Model).toolCloseAllDiffTabs},
	{"executeCode", "Execute Python code in the Jupyter kernel for the current notebook file", json.RawMessage(`{"type":"object","properties":{` +
		`"code":{"type":"string","description":"The code to be executed on the kernel"}},"required":["code"],"additionalProperties":false}`), func(c Capabilities) bool { return c.ExecuteCode }, (*Model).toolExecuteCode},
}

var emptySchema = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

// Tools lists the tools this editor can serve. Tools it cannot serve are left out (the CLI calls
// the ones it needs by name anyway, and gets a clear error).
func (m *Model) Tools() []Tool {
	var out []Tool
	for _, t := range tools {
		if t.listed(m.info.Caps) {
			out = append(out, t)
		}
	}
	return out
}

func findTool(name string) *Tool {
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i]
		}
	}
	return nil
}
