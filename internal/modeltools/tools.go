package modeltools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/exclude"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// Options configures the tools.
type Options struct {
	Source Source
	// Folders returns the workspace folders (absolute); relative paths are taken against the
	// first, and paths inside one are shown relative to it.
	Folders func() []string
	// MaxResults bounds the lines of one answer (default 50); the rest is counted as "N more".
	MaxResults int
	Version    string
	// Excluded reports whether a file is excluded from sharing (the IDE model's Excluded, that is
	// exclude.Set.Excludes); nothing of such a file is read, asked of a source or quoted. Nil:
	// exclude.Default's globs.
	Excluded func(path string) bool
}

// PositionInput is where a model points: a line and the name on it, never a column.
type PositionInput struct {
	Path   string `json:"path" jsonschema:"the file: relative to the workspace root, or absolute"`
	Line   int    `json:"line" jsonschema:"1-based line number, as an editor or grep -n shows it"`
	Symbol string `json:"symbol" jsonschema:"the identifier as it appears on that line (e.g. Close, not c.Close()); the tool finds its column"`
}

// RenameInput is a position and the name to rename to.
type RenameInput struct {
	Path    string `json:"path" jsonschema:"the file: relative to the workspace root, or absolute"`
	Line    int    `json:"line" jsonschema:"1-based line number, as an editor or grep -n shows it"`
	Symbol  string `json:"symbol" jsonschema:"the identifier as it appears on that line; the tool finds its column"`
	NewName string `json:"new_name" jsonschema:"the new name"`
}

// FileInput names a file.
type FileInput struct {
	Path string `json:"path" jsonschema:"the file: relative to the workspace root, or absolute"`
}

// QueryInput searches the workspace.
type QueryInput struct {
	Query string `json:"query" jsonschema:"a symbol name or part of one (the language server matches fuzzily)"`
	Path  string `json:"path" jsonschema:"any file of the project in the language to search: it picks the language server"`
}

const posHelp = " Point at a symbol with path, a 1-based line and the symbol's name on that line. " +
	"Results are path:line:col (1-based) followed by the line's text."

// NewServer returns the MCP server with the eight tools. Its handlers are safe for concurrent
// use; each tool call makes one or two requests to o.Source.
func NewServer(o Options) *mcp.Server {
	if o.MaxResults <= 0 {
		o.MaxResults = 50
	}
	if o.Folders == nil {
		o.Folders = func() []string { return nil }
	}
	o.Version = cmp.Or(o.Version, "0")
	if o.Excluded == nil {
		def, _ := exclude.New(nil) // the default compiles
		folders := o.Folders
		o.Excluded = func(p string) bool { return def.Excludes(p, folders()) }
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "claude-ide-bridge-code", Version: o.Version}, &mcp.ServerOptions{
		Instructions: "Code navigation answered by the project's language servers (the editor's when it has them). " +
			"Prefer these to grep for definitions, references, implementations and callers: they understand scopes and types.",
	})
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(s, &mcp.Tool{Name: "definition", Annotations: readOnly,
		Description: "Where a symbol is defined (go to definition)." + posHelp}, handler(o, locations("textDocument/definition", "definition")))
	mcp.AddTool(s, &mcp.Tool{Name: "references", Annotations: readOnly,
		Description: "Every use of a symbol across the project, its declaration included (find references)." + posHelp}, handler(o, locations("textDocument/references", "references")))
	mcp.AddTool(s, &mcp.Tool{Name: "hover", Annotations: readOnly,
		Description: "A symbol's type or signature and its documentation." + posHelp}, handler(o, (*call).hover))
	mcp.AddTool(s, &mcp.Tool{Name: "document_symbols", Annotations: readOnly,
		Description: "The outline of one file: its types, functions, methods, fields, with their places."}, handler(o, (*call).documentSymbols))
	mcp.AddTool(s, &mcp.Tool{Name: "workspace_symbols", Annotations: readOnly,
		Description: "Find symbols by name across the project. Give path: any file of the project in that language."}, handler(o, (*call).workspaceSymbols))
	mcp.AddTool(s, &mcp.Tool{Name: "implementations", Annotations: readOnly,
		Description: "The types implementing an interface, or the methods implementing an interface method." + posHelp}, handler(o, locations("textDocument/implementation", "implementations")))
	mcp.AddTool(s, &mcp.Tool{Name: "incoming_calls", Annotations: readOnly,
		Description: "The places that call a function or method, with the calling function's name." + posHelp}, handler(o, (*call).incomingCalls))
	mcp.AddTool(s, &mcp.Tool{Name: "rename_preview", Annotations: readOnly,
		Description: "Every edit renaming a symbol would make, each shown as the changed line. Nothing is changed: apply the edits yourself if you want them." + posHelp}, handler(o, (*call).renamePreview))
	return s
}

// call is one tool call's state: the formatter (file cache) and the source's note.
type call struct {
	src  Source
	f    formatter
	note string
}

// handler runs f as one tool call, with a call state of its own.
func handler[In any](o Options, f func(*call, context.Context, In) (*mcp.CallToolResult, error)) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		folders := o.Folders()
		c := &call{src: o.Source, f: formatter{folders: folders, max: o.MaxResults,
			files: files{roots: userfile.Roots(folders), excluded: o.Excluded, held: membudget.Default.NewGrant()}}}
		// The call's file texts go with it: nothing of them is in its answer but copies of a
		// few clipped lines, so their share of the memory budget is released with them.
		defer c.f.files.held.Release()
		res, err := f(c, ctx, in)
		return res, nil, err
	}
}

// abs resolves a path the model gave.
func (c *call) abs(p string) (string, error) {
	p = strings.TrimSpace(strings.TrimPrefix(p, "file://"))
	if p == "" {
		return "", errors.New("path is required")
	}
	if !filepath.IsAbs(p) {
		if len(c.f.folders) == 0 {
			return "", fmt.Errorf("path %q is relative and there is no workspace folder; give an absolute path", p)
		}
		p = filepath.Join(c.f.folders[0], p)
	}
	p = filepath.Clean(p)
	// From here on the resolved path is used: what was checked is what is read and asked.
	real, err := c.f.files.check(p)
	if err != nil {
		return "", err
	}
	if _, err := c.f.files.lines(real); err != nil {
		return "", err
	}
	return real, nil
}

// position finds the symbol on the line and builds the request's params.
func (c *call) position(path string, line int, symbol string) (positionParams, error) {
	var pp positionParams
	abs, err := c.abs(path)
	if err != nil {
		return pp, err
	}
	symbol = strings.TrimSpace(symbol)
	if symbol == "" {
		return pp, errors.New("symbol is required: the name as it appears on the line")
	}
	lines, _ := c.f.files.lines(abs)
	if line < 1 || line > len(lines) {
		return pp, fmt.Errorf("line %d is out of range: %s has %d lines", line, c.f.display(abs), len(lines))
	}
	text := lines[line-1]
	at := findSymbol(text, symbol)
	if at < 0 {
		return pp, fmt.Errorf("%q is not on line %d of %s, which reads: %s", symbol, line, c.f.display(abs), clip(strings.TrimSpace(text), 200))
	}
	u := units(text, at)
	pp.TextDocument.URI = pathURI(abs)
	pp.Position = lspPosition{Line: line - 1, Character: u["utf-16"]}
	pp.units = u
	return pp, nil
}

// request asks the source and remembers how to read its answer.
func (c *call) request(ctx context.Context, path, method string, params any) (json.RawMessage, error) {
	// Every path a source is asked about was resolved by abs; checked again here so that no
	// tool can hand a source (the editor loads the file) a path outside the workspace or excluded.
	if _, err := c.f.files.check(path); err != nil {
		return nil, err
	}
	var raw json.RawMessage
	a, err := c.src.Request(ctx, path, method, params, &raw)
	if err != nil {
		return nil, err
	}
	c.f.enc = cmp.Or(a.Encoding, "utf-16")
	c.note = cmp.Or(a.Note, c.note)
	return raw, nil
}

// ask is request with the answer decoded into v (null leaves v as it is); what names the
// answer in the error.
func (c *call) ask(ctx context.Context, path, method string, params, v any, what string) error {
	raw, err := c.request(ctx, path, method, params)
	if err != nil || len(raw) == 0 || string(raw) == "null" {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("unreadable %s from the language server: %w", what, err)
	}
	return nil
}

// text is a tool result: the body, with the source's note after it.
func (c *call) text(body string) *mcp.CallToolResult {
	if c.note != "" {
		body += "(" + c.note + ")\n"
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: body}}}
}

// locations is a tool answering a list of places: definition, references, implementations.
func locations(method, what string) func(*call, context.Context, PositionInput) (*mcp.CallToolResult, error) {
	return func(c *call, ctx context.Context, in PositionInput) (*mcp.CallToolResult, error) {
		pp, err := c.position(in.Path, in.Line, in.Symbol)
		if err != nil {
			return nil, err
		}
		if method == "textDocument/references" {
			pp.Context = &refContext{IncludeDeclaration: true}
		}
		abs := uriPath(pp.TextDocument.URI)
		raw, err := c.request(ctx, abs, method, pp)
		if err != nil {
			return nil, err
		}
		locs, err := parseLocations(raw)
		if err != nil {
			return nil, err
		}
		if len(locs) == 0 {
			return c.text(fmt.Sprintf("No %s found for %s at %s:%d.\n", what, in.Symbol, c.f.display(abs), in.Line)), nil
		}
		es := make([]entry, 0, len(locs))
		for _, l := range locs {
			p := uriPath(l.URI)
			if p == "" {
				continue
			}
			es = append(es, c.f.at(p, l.Range.Start, ""))
		}
		return c.text(c.f.list(fmt.Sprintf("%s of %s (%s:%d):", what, in.Symbol, c.f.display(abs), in.Line), es, false)), nil
	}
}

func (c *call) hover(ctx context.Context, in PositionInput) (*mcp.CallToolResult, error) {
	pp, err := c.position(in.Path, in.Line, in.Symbol)
	if err != nil {
		return nil, err
	}
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if err := c.ask(ctx, uriPath(pp.TextDocument.URI), "textDocument/hover", pp, &h, "hover"); err != nil {
		return nil, err
	}
	s := strings.TrimSpace(hoverText(h.Contents))
	if s == "" {
		return c.text(fmt.Sprintf("No hover information for %s at %s:%d.\n", in.Symbol, in.Path, in.Line)), nil
	}
	return c.text(clip(s, 8000) + "\n"), nil
}

// hoverText reads MarkupContent | MarkedString | MarkedString[].
func hoverText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var mc struct {
		Kind, Language, Value string
	}
	if json.Unmarshal(raw, &mc) == nil && (mc.Value != "" || mc.Kind != "") {
		if mc.Language != "" {
			return "```" + mc.Language + "\n" + mc.Value + "\n```"
		}
		return mc.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		parts := make([]string, 0, len(list))
		for _, it := range list {
			parts = append(parts, hoverText(it))
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// symbol is DocumentSymbol or SymbolInformation/WorkspaceSymbol, whichever came.
type symbol struct {
	Name           string          `json:"name"`
	Detail         string          `json:"detail"`
	Kind           int             `json:"kind"`
	ContainerName  string          `json:"containerName"`
	SelectionRange *lspRange       `json:"selectionRange"`
	Location       json.RawMessage `json:"location"`
	Children       []symbol        `json:"children"`
}

func (c *call) symbolEntries(ss []symbol, docPath, prefix string, out []entry) []entry {
	for _, s := range ss {
		name := s.Name
		if prefix != "" {
			name = prefix + "." + s.Name
		}
		text := kindName(s.Kind) + " " + name
		if d := strings.TrimSpace(s.Detail); d != "" {
			text += " " + clip(strings.Join(strings.Fields(d), " "), 120)
		}
		if s.ContainerName != "" {
			text += " (in " + s.ContainerName + ")"
		}
		switch {
		case s.SelectionRange != nil:
			e := c.f.at(docPath, s.SelectionRange.Start, text)
			e.order = len(out)
			out = append(out, e)
		case len(s.Location) > 0:
			var l struct {
				URI   string    `json:"uri"`
				Range *lspRange `json:"range"`
			}
			if json.Unmarshal(s.Location, &l) != nil || uriPath(l.URI) == "" {
				continue
			}
			var p lspPosition // no range: 1:1
			if l.Range != nil {
				p = l.Range.Start
			}
			e := c.f.at(uriPath(l.URI), p, text)
			e.order = len(out)
			out = append(out, e)
		}
		out = c.symbolEntries(s.Children, docPath, name, out)
	}
	return out
}

func (c *call) documentSymbols(ctx context.Context, in FileInput) (*mcp.CallToolResult, error) {
	abs, err := c.abs(in.Path)
	if err != nil {
		return nil, err
	}
	var ss []symbol
	if err := c.ask(ctx, abs, "textDocument/documentSymbol", map[string]any{"textDocument": textDocument{URI: pathURI(abs)}}, &ss, "symbols"); err != nil {
		return nil, err
	}
	if len(ss) == 0 {
		return c.text(fmt.Sprintf("No symbols in %s.\n", c.f.display(abs))), nil
	}
	es := c.symbolEntries(ss, abs, "", nil)
	slices.SortFunc(es, func(a, b entry) int { return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.order, b.order)) })
	return c.text(c.f.list(fmt.Sprintf("symbols of %s:", c.f.display(abs)), es, true)), nil
}

func (c *call) workspaceSymbols(ctx context.Context, in QueryInput) (*mcp.CallToolResult, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, errors.New("query is required")
	}
	if strings.TrimSpace(in.Path) == "" {
		return nil, errors.New("path is required: any file of the project in the language to search (it picks the language server)")
	}
	abs, err := c.abs(in.Path)
	if err != nil {
		return nil, err
	}
	var ss []symbol
	if err := c.ask(ctx, abs, "workspace/symbol", map[string]string{"query": in.Query}, &ss, "symbols"); err != nil {
		return nil, err
	}
	if len(ss) == 0 {
		return c.text(fmt.Sprintf("No symbols match %q.\n", in.Query)), nil
	}
	return c.text(c.f.list(fmt.Sprintf("symbols matching %q:", in.Query), c.symbolEntries(ss, "", "", nil), false)), nil
}

func (c *call) incomingCalls(ctx context.Context, in PositionInput) (*mcp.CallToolResult, error) {
	pp, err := c.position(in.Path, in.Line, in.Symbol)
	if err != nil {
		return nil, err
	}
	abs := uriPath(pp.TextDocument.URI)
	var items []json.RawMessage
	if err := c.ask(ctx, abs, "textDocument/prepareCallHierarchy", pp, &items, "call hierarchy"); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return c.text(fmt.Sprintf("%s at %s:%d is not a function or method the language server can find callers of.\n", in.Symbol, c.f.display(abs), in.Line)), nil
	}
	var es []entry
	for _, item := range items {
		var calls []struct {
			From struct {
				Name string `json:"name"`
				URI  string `json:"uri"`
			} `json:"from"`
			FromRanges []lspRange `json:"fromRanges"`
		}
		if err := c.ask(ctx, abs, "callHierarchy/incomingCalls", map[string]json.RawMessage{"item": item}, &calls, "incoming calls"); err != nil {
			return nil, err
		}
		for _, call := range calls {
			p := uriPath(call.From.URI)
			if p == "" {
				continue
			}
			for _, r := range call.FromRanges {
				e := c.f.at(p, r.Start, "")
				e.text = c.f.context(p, e.line) + "   (in " + call.From.Name + ")"
				es = append(es, e)
			}
		}
	}
	if len(es) == 0 {
		return c.text(fmt.Sprintf("No calls to %s found.\n", in.Symbol)), nil
	}
	return c.text(c.f.list(fmt.Sprintf("calls to %s (%s:%d):", in.Symbol, c.f.display(abs), in.Line), es, false)), nil
}

type textEdit struct {
	Range   lspRange `json:"range"`
	NewText string   `json:"newText"`
}

func (c *call) renamePreview(ctx context.Context, in RenameInput) (*mcp.CallToolResult, error) {
	if strings.TrimSpace(in.NewName) == "" {
		return nil, errors.New("new_name is required")
	}
	pp, err := c.position(in.Path, in.Line, in.Symbol)
	if err != nil {
		return nil, err
	}
	pp.NewName = in.NewName
	abs := uriPath(pp.TextDocument.URI)
	var we struct {
		Changes         map[string][]textEdit `json:"changes"`
		DocumentChanges []struct {
			Kind         string       `json:"kind"`
			TextDocument textDocument `json:"textDocument"`
			Edits        []textEdit   `json:"edits"`
			OldURI       string       `json:"oldUri"`
			NewURI       string       `json:"newUri"`
			URI          string       `json:"uri"`
		} `json:"documentChanges"`
	}
	if err := c.ask(ctx, abs, "textDocument/rename", pp, &we, "rename edits"); err != nil {
		return nil, err
	}
	edits := map[string][]textEdit{}
	var ops []string
	for uri, es := range we.Changes {
		edits[uri] = append(edits[uri], es...)
	}
	for _, dc := range we.DocumentChanges {
		switch dc.Kind {
		case "":
			edits[dc.TextDocument.URI] = append(edits[dc.TextDocument.URI], dc.Edits...)
		case "rename":
			ops = append(ops, fmt.Sprintf("rename file %s to %s", c.f.display(uriPath(dc.OldURI)), c.f.display(uriPath(dc.NewURI))))
		default:
			ops = append(ops, fmt.Sprintf("%s file %s", dc.Kind, c.f.display(uriPath(dc.URI))))
		}
	}
	var es []entry
	for uri, list := range edits {
		p := uriPath(uri)
		if p == "" {
			continue
		}
		es = append(es, c.previewEdits(p, list)...)
	}
	if len(es) == 0 && len(ops) == 0 {
		return c.text(fmt.Sprintf("Renaming %s would change nothing.\n", in.Symbol)), nil
	}
	header := fmt.Sprintf("renaming %s to %s would make %d edits in %d files (nothing was changed; each line is shown as it would read):", in.Symbol, in.NewName, len(es), len(edits))
	out := c.f.list(header, es, false)
	for _, op := range ops {
		out += "and " + op + "\n"
	}
	return c.text(out), nil
}

// previewEdits shows each edit at its place, with its line as it would read after every edit on
// that line (edits spanning lines show their new text).
func (c *call) previewEdits(path string, list []textEdit) []entry {
	byLine := map[int][]textEdit{}
	for _, e := range list {
		byLine[e.Range.Start.Line] = append(byLine[e.Range.Start.Line], e)
	}
	var out []entry
	hidden := c.f.files.hidden(path)
	for ln, es := range byLine {
		if hidden != "" {
			for _, e := range es {
				out = append(out, c.f.at(path, e.Range.Start, hidden))
			}
			continue
		}
		line := c.f.files.line(path, ln)
		sort.Slice(es, func(i, j int) bool { return es[i].Range.Start.Character > es[j].Range.Start.Character })
		after := line
		multi := false
		for _, e := range es {
			if e.Range.End.Line != ln {
				multi = true
				continue
			}
			s, t := ide.ByteOffset(after, e.Range.Start.Character, ide.Encoding(c.f.enc)), ide.ByteOffset(after, e.Range.End.Character, ide.Encoding(c.f.enc))
			// after is edited right to left, so offsets to the left are still the server's.
			if s <= t && t <= len(after) {
				after = after[:s] + e.NewText + after[t:]
			}
		}
		for _, e := range es {
			text := clip(strings.TrimSpace(after), 160)
			if multi && e.Range.End.Line != ln {
				text = "replace through line " + fmt.Sprint(e.Range.End.Line+1) + " with " + clip(fmt.Sprintf("%q", e.NewText), 160)
			}
			out = append(out, c.f.at(path, e.Range.Start, text))
		}
	}
	return out
}
