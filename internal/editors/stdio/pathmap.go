package stdio

import (
	"context"
	"fmt"
	"log/slog"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/pathmap"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
)

// This file is the path translation of a bridge that runs where Claude runs while its editor
// runs elsewhere (serve --stdio --path-map LOCAL=REMOTE; docs/remote.md). Every path that
// crosses the editor protocol is translated here and nowhere else: the editor only ever sees
// LOCAL paths, the Model, the lock file and Claude only REMOTE ones.
//
//   - editor → bridge: mapIn rewrites the params of initialize (workspaceFolders),
//     workspaceFoldersChanged (folders), selectionChanged and atMentioned (filePath) before the
//     handler sees them, and mapOut rewrites the paths in the answers to status and
//     closeAllDiffs.
//   - bridge → editor: mappedEditor wraps the ide.Editor: the paths in each request (openFile,
//     showDiff, setBufferText, checkDocumentDirty, saveDocument, getDiagnostics) go out LOCAL,
//     the paths in the answers (getOpenEditors, getCurrentSelection, getDiagnostics) come back
//     REMOTE.
//
// A path no mapping holds is an error to the side that sent it, never passed through: an editor
// request is answered -32602 naming the field; an editor notification is dropped and logged;
// Claude's tool call gets a tool error. Entries of a list the editor returns (open editors, all
// diagnostics) that lie outside the map are left out: they do not exist on Claude's side.
//
// In this mode the editor's pid means nothing where the bridge runs (another machine, another
// pid namespace): initialize's pid is ignored, so the lock carries the bridge's own pid (which
// the CLI checks in its own namespace) and the bridge ends with its stdin, not with a pid.

// withPathMap wraps the handler of editor requests with the translation.
func withPathMap(pm *pathmap.Map, log *slog.Logger, h jsonrpc.Handler) jsonrpc.Handler {
	return func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		in, err := mapIn(pm, req)
		if err != nil {
			if !req.IsCall() {
				log.Warn("editor notification dropped", "method", req.Method, "err", err)
				return nil, nil
			}
			return nil, err
		}
		res, err := h(ctx, in)
		if err != nil || res == nil {
			return res, err
		}
		return mapOut(pm, req.Method, res)
	}
}

// pathFields names the path members of each editor → bridge method: single paths and lists.
var pathFields = map[string]struct{ one, list []string }{
	"initialize":              {list: []string{"workspaceFolders"}},
	"workspaceFoldersChanged": {list: []string{"folders"}},
	"selectionChanged":        {one: []string{"filePath"}},
	"atMentioned":             {one: []string{"filePath"}},
	"fileClosed":              {one: []string{"filePath"}},
	"review":                  {one: []string{"revert"}},
	"userWrote":               {one: []string{"filePath"}},
}

// mapIn translates the paths of an editor message's params. The params are read with the
// strict reader every channel uses (jsonrpc.UnmarshalParams: a duplicate key at any depth, a
// wrong type, is -32602, here as in the handler), never loosely: a loose decode kept the last of
// two "filePath" members, translated it and re-encoded the params without the duplicate, so the
// handler's own check never saw it (issue 25 item 4).
func mapIn(pm *pathmap.Map, req *jsonrpc.Request) (*jsonrpc.Request, error) {
	f, ok := pathFields[req.Method]
	if !ok {
		return req, nil
	}
	var params map[string]jsontext.Value
	if err := jsonrpc.UnmarshalParams(req.Params, &params); err != nil {
		return nil, err
	}
	if req.Method == "initialize" {
		delete(params, "pid") // see the file comment: the lock gets the bridge's own pid
	}
	for _, name := range f.one {
		raw, ok := params[name]
		if !ok {
			continue
		}
		var p string
		if jsonv2.Unmarshal(raw, &p) != nil {
			continue // not a string: the handler names the wrong type
		}
		m, err := pm.ToRemote(p)
		if err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %q: %v", name, err)
		}
		params[name], _ = jsonv2.Marshal(m)
	}
	for _, name := range f.list {
		raw, ok := params[name]
		if !ok {
			continue
		}
		var ps []string
		if jsonv2.Unmarshal(raw, &ps) != nil {
			continue
		}
		for i, p := range ps {
			m, err := pm.ToRemote(p)
			if err != nil {
				return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %q: %v", name, err)
			}
			ps[i] = m
		}
		params[name], _ = jsonv2.Marshal(ps)
	}
	data, err := jsonv2.Marshal(params, jsonv2.Deterministic(true))
	if err != nil {
		return nil, err
	}
	out := *req
	out.Params = data
	return &out, nil
}

// mapOut translates the paths of the bridge's answers to editor requests.
func mapOut(pm *pathmap.Map, method string, res any) (any, error) {
	if a, ok := res.(review.Answer); ok {
		files := make([]review.FileReport, len(a.Report.Files))
		for i, f := range a.Report.Files {
			l, err := pm.ToLocal(f.Path)
			if err != nil {
				return nil, jsonrpc.Errorf(jsonrpc.CodeServerError, "review %v", err)
			}
			f.Path = l
			files[i] = f
		}
		a.Report.Files = files
		if a.Reverted != "" {
			a.Reverted, _ = pm.ToLocal(a.Reverted)
		}
		return a, nil
	}
	r, ok := res.(map[string]any)
	if !ok {
		return res, nil
	}
	switch method {
	case "closeAllDiffs":
		if restored, ok := r["restored"].([]string); ok {
			out := make([]string, len(restored))
			for i, p := range restored {
				l, err := pm.ToLocal(p)
				if err != nil {
					return nil, jsonrpc.Errorf(jsonrpc.CodeServerError, "restored %v", err)
				}
				out[i] = l
			}
			r["restored"] = out
		}
	case "status":
		if diffs, ok := r["diffs"].([]ide.DiffInfo); ok {
			out := make([]ide.DiffInfo, len(diffs))
			for i, d := range diffs {
				l, err := pm.ToLocal(d.FilePath)
				if err != nil {
					return nil, jsonrpc.Errorf(jsonrpc.CodeServerError, "diff %q: %v", d.TabName, err)
				}
				d.FilePath = l
				out[i] = d
			}
			r["diffs"] = out
		}
	}
	return r, nil
}

// mappedEditor is the ide.Editor of an editor on the other side of a path map.
type mappedEditor struct {
	ed  ide.Editor
	pm  *pathmap.Map
	log *slog.Logger
}

var _ ide.Editor = mappedEditor{}

// local translates a path of Claude's for the editor; the error becomes Claude's tool error.
func (e mappedEditor) local(p string) (string, error) {
	l, err := e.pm.ToLocal(p)
	if err != nil {
		return "", fmt.Errorf("the editor runs on another machine and cannot see this file: %v", err)
	}
	return l, nil
}

func (e mappedEditor) OpenFile(ctx context.Context, p ide.OpenFileParams) (ide.OpenFileResult, error) {
	var err error
	if p.FilePath, err = e.local(p.FilePath); err != nil {
		return ide.OpenFileResult{}, err
	}
	return e.ed.OpenFile(ctx, p)
}

func (e mappedEditor) ShowDiff(ctx context.Context, p ide.ShowDiffParams) error {
	var err error
	if p.FilePath, err = e.local(p.FilePath); err != nil {
		return err
	}
	if p.NewFilePath, err = e.local(p.NewFilePath); err != nil {
		return err
	}
	return e.ed.ShowDiff(ctx, p)
}

func (e mappedEditor) DiffText(ctx context.Context, tab string) (string, bool, error) {
	if dt, ok := e.ed.(ide.DiffTexter); ok {
		return dt.DiffText(ctx, tab)
	}
	return "", false, nil
}

func (e mappedEditor) CloseDiff(ctx context.Context, tab string) error {
	return e.ed.CloseDiff(ctx, tab)
}

func (e mappedEditor) SetBufferText(ctx context.Context, path, text string) error {
	l, err := e.local(path)
	if err != nil {
		return err
	}
	return e.ed.SetBufferText(ctx, l, text)
}

func (e mappedEditor) OpenEditors(ctx context.Context) ([]ide.OpenEditor, error) {
	eds, err := e.ed.OpenEditors(ctx)
	return remoteOnly(e, eds, func(ed *ide.OpenEditor) *string { return &ed.FilePath }, "open editor"), err
}

// remoteOnly keeps the items whose path (at) the map translates, translated; the others are left
// out (what names them in the log).
func remoteOnly[T any](e mappedEditor, items []T, at func(*T) *string, what string) []T {
	out := items[:0]
	for _, it := range items {
		p := at(&it)
		r, err := e.pm.ToRemote(*p)
		if err != nil {
			e.log.Debug(what+" outside the path map left out", "err", err)
			continue
		}
		*p = r
		out = append(out, it)
	}
	return out
}

func (e mappedEditor) CurrentSelection(ctx context.Context) (*ide.Selection, error) {
	sel, err := e.ed.CurrentSelection(ctx)
	if err != nil || sel == nil {
		return sel, err
	}
	r, err := e.pm.ToRemote(sel.FilePath)
	if err != nil {
		return nil, fmt.Errorf("the editor's selection is in a file Claude cannot see: %v", err)
	}
	sel.FilePath = r
	return sel, nil
}

func (e mappedEditor) CheckDirty(ctx context.Context, path string) (ide.DocState, error) {
	l, err := e.local(path)
	if err != nil {
		return ide.DocState{}, err
	}
	return e.ed.CheckDirty(ctx, l)
}

func (e mappedEditor) Save(ctx context.Context, path string) (ide.DocState, error) {
	l, err := e.local(path)
	if err != nil {
		return ide.DocState{}, err
	}
	return e.ed.Save(ctx, l)
}

func (e mappedEditor) Diagnostics(ctx context.Context, path string) ([]ide.FileDiagnostics, error) {
	if path != "" {
		var err error
		if path, err = e.local(path); err != nil {
			return nil, err
		}
	}
	files, err := e.ed.Diagnostics(ctx, path)
	return remoteOnly(e, files, func(f *ide.FileDiagnostics) *string { return &f.FilePath }, "diagnostics"), err
}

func (e mappedEditor) ExecuteCode(ctx context.Context, code string) ([]ide.Content, error) {
	return e.ed.ExecuteCode(ctx, code)
}

// handler is the editor request handler: s.handle, translated when there is a path map.
func (s *server) handler() jsonrpc.Handler {
	if s.opt.PathMap.Empty() {
		return s.handle
	}
	return withPathMap(s.opt.PathMap, s.opt.Log, s.handle)
}

// editor is the ide.Editor speaking on conn, translated when there is a path map.
func (s *server) editor(conn *jsonrpc.Conn) ide.Editor {
	if s.opt.PathMap.Empty() {
		return remote{conn}
	}
	return mappedEditor{ed: remote{conn}, pm: s.opt.PathMap, log: s.opt.Log}
}
