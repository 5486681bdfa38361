package stdio

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// remote is an ide.Editor whose every method is a request to the editor process. It holds no
// state: translating is all it does.
type remote struct{ conn *jsonrpc.Conn }

// editorError is the editor's answer to a request it could not perform. It deliberately does
// not unwrap to *jsonrpc.Error: the editor's message must reach Claude as a tool error
// (isError), not as a protocol error of Claude's own call.
type editorError struct{ msg string }

func (e *editorError) Error() string { return e.msg }

func (e remote) call(ctx context.Context, method string, params, result any) error {
	err := e.conn.Call(ctx, method, params, result)
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return &editorError{rpcErr.Message}
	}
	if errors.Is(err, jsonrpc.ErrClosed) {
		return ide.ErrEditorGone
	}
	return err
}

func (e remote) OpenFile(ctx context.Context, p ide.OpenFileParams) (ide.OpenFileResult, error) {
	var r ide.OpenFileResult
	return r, e.call(ctx, "openFile", p, &r)
}

func (e remote) ShowDiff(ctx context.Context, p ide.ShowDiffParams) error {
	return e.call(ctx, "showDiff", showDiffParams(p), nil)
}

// showDiffParams are showDiff's params with the proposal as it came from Claude, a piece of the
// message of its own (jsonrpc.Pieces): encoding/json would check the 10 MiB text once more and
// copy it.
func showDiffParams(p ide.ShowDiffParams) jsonrpc.Pieces {
	head, _ := json.Marshal(struct { // strings, a bool and a number: it always encodes
		TabName     string `json:"tabName"`
		FilePath    string `json:"filePath"`
		NewFilePath string `json:"newFilePath"`
		FileExists  bool   `json:"fileExists"`
		// Proposal numbers the proposal: diffAccepted may name it instead of sending the text
		// back when the user did not edit it (docs/editor-protocol.md).
		Proposal uint64 `json:"proposal,omitempty"`
		// ClientID: whose openDiff (clientConnected's clientId; clientPid tells its process).
		ClientID ide.ClientID `json:"clientId,omitempty"`
		// Agent: which CLI proposes it ("claude", "gemini", "qwen").
		Agent string `json:"agent,omitempty"`
	}{p.TabName, p.FilePath, p.NewFilePath, p.FileExists, p.Seq, p.Owner, p.Agent})
	return jsonrpc.Pieces{head[:len(head)-1], []byte(`,"newContents":`), p.NewContents.JSON(), []byte("}")}
}

// DiffText is diffText: the diff view's text now; a null text: no such view.
func (e remote) DiffText(ctx context.Context, tab string) (string, bool, error) {
	var r struct {
		Text *string `json:"text"`
	}
	if err := e.call(ctx, "diffText", map[string]string{"tabName": tab}, &r); err != nil || r.Text == nil {
		return "", false, err
	}
	return *r.Text, true, nil
}

func (e remote) CloseDiff(ctx context.Context, tab string) error {
	return e.call(ctx, "closeDiff", map[string]string{"tabName": tab}, nil)
}

func (e remote) SetBufferText(ctx context.Context, path, text string) error {
	return e.call(ctx, "setBufferText", map[string]string{"filePath": path, "text": text}, nil)
}

func (e remote) OpenEditors(ctx context.Context) ([]ide.OpenEditor, error) {
	var r struct {
		Editors []ide.OpenEditor `json:"editors"`
	}
	err := e.call(ctx, "getOpenEditors", struct{}{}, &r)
	return r.Editors, err
}

func (e remote) CurrentSelection(ctx context.Context) (*ide.Selection, error) {
	var r struct {
		Selection *ide.Selection `json:"selection"`
	}
	err := e.call(ctx, "getCurrentSelection", struct{}{}, &r)
	return r.Selection, err
}

func (e remote) CheckDirty(ctx context.Context, path string) (ide.DocState, error) {
	var r ide.DocState
	return r, e.call(ctx, "checkDocumentDirty", map[string]string{"filePath": path}, &r)
}

func (e remote) Save(ctx context.Context, path string) (ide.DocState, error) {
	var r ide.DocState
	return r, e.call(ctx, "saveDocument", map[string]string{"filePath": path}, &r)
}

func (e remote) Diagnostics(ctx context.Context, path string) ([]ide.FileDiagnostics, error) {
	params := map[string]string{}
	if path != "" {
		params["filePath"] = path
	}
	var r struct {
		Files []ide.FileDiagnostics `json:"files"`
	}
	err := e.call(ctx, "getDiagnostics", params, &r)
	return r.Files, err
}

func (e remote) ExecuteCode(ctx context.Context, code string) ([]ide.Content, error) {
	var r struct {
		Content []ide.Content `json:"content"`
	}
	err := e.call(ctx, "executeCode", map[string]string{"code": code}, &r)
	return r.Content, err
}
