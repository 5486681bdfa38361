package lsp

import (
	"context"
	"errors"

	"go.lsp.dev/protocol"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
)

// WithDiagnostics gives an editor that has no diagnostics of its own (the terminal of serve, a
// plugin whose editor cannot read them, such as Nova's) the getDiagnostics capability, answered
// by m. An editor that declares diagnostics itself is returned unchanged: its own are what the
// user sees. m must use info's Encoding (NewForEditor does that).
func WithDiagnostics(ed ide.Editor, info ide.EditorInfo, m *Manager) (ide.Editor, ide.EditorInfo) {
	if m == nil || info.Caps.Diagnostics || len(m.servers) == 0 {
		return ed, info
	}
	info.Caps.Diagnostics = true
	return diagEditor{ed, m}, info
}

// diagEditor is an ide.Editor whose Diagnostics come from language servers.
type diagEditor struct {
	ide.Editor
	m *Manager
}

// DiffText forwards to the editor (ide.DiffTexter).
func (e diagEditor) DiffText(ctx context.Context, tab string) (string, bool, error) {
	if dt, ok := e.Editor.(ide.DiffTexter); ok {
		return dt.DiffText(ctx, tab)
	}
	return "", false, nil
}

// Diagnostics answers from the Manager (EditorDiagnostics).
func (e diagEditor) Diagnostics(ctx context.Context, path string) ([]ide.FileDiagnostics, error) {
	return e.m.EditorDiagnostics(ctx, path)
}

// EditorDiagnostics is getDiagnostics answered by m, as an editor answers it: the one path for
// the bridge's own language servers, behind an editor (WithDiagnostics) or with none attached
// (outlive). A file no server is configured for, outside the workspace, in an untrusted
// workspace, or whose server's program is unsafe to run (the Manager logs the last two once),
// has no diagnostics: an empty list, not an error, which the CLI would stop asking after three
// (it asks about every file it edits).
func (m *Manager) EditorDiagnostics(ctx context.Context, path string) ([]ide.FileDiagnostics, error) {
	files, err := m.Diagnostics(ctx, path)
	if errors.Is(err, ErrNoServer) || errors.Is(err, ErrUntrusted) || errors.Is(err, ErrOutside) || errors.Is(err, trust.ErrUnsafeProgram) {
		return []ide.FileDiagnostics{{FilePath: path, Diagnostics: []ide.Diagnostic{}}}, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]ide.FileDiagnostics, 0, len(files))
	for _, f := range files {
		ds := make([]ide.Diagnostic, 0, len(f.Diagnostics))
		for _, d := range f.Diagnostics {
			ds = append(ds, ToIDE(d))
		}
		out = append(out, ide.FileDiagnostics{FilePath: f.Path, Diagnostics: ds})
	}
	return out, nil
}

// ToIDE converts a protocol diagnostic to the CLI's shape (severity names as the CLI reads them,
// claude-cli-facts.md: "Error"|"Warning"|"Info"|"Hint"; a missing severity is an Error, as
// editors show it).
func ToIDE(d protocol.Diagnostic) ide.Diagnostic {
	sev := "Error"
	switch d.Severity {
	case protocol.DiagnosticSeverityWarning:
		sev = "Warning"
	case protocol.DiagnosticSeverityInformation:
		sev = "Info"
	case protocol.DiagnosticSeverityHint:
		sev = "Hint"
	}
	return ide.Diagnostic{
		Message:  d.Message,
		Severity: sev,
		Range: ide.Range{
			Start: ide.Position{Line: int(d.Range.Start.Line), Character: int(d.Range.Start.Character)},
			End:   ide.Position{Line: int(d.Range.End.Line), Character: int(d.Range.End.Character)},
		},
		Source: d.Source,
		Code:   d.Code,
	}
}
