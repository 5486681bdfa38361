package lsp_test

import (
	"testing"

	"go.lsp.dev/protocol"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
)

// Facts: severity is "Error"|"Warning"|"Info"|"Hint".
func TestToIDESeverity(t *testing.T) {
	for sev, want := range map[protocol.DiagnosticSeverity]string{
		0: "Error", protocol.DiagnosticSeverityError: "Error", protocol.DiagnosticSeverityWarning: "Warning",
		protocol.DiagnosticSeverityInformation: "Info", protocol.DiagnosticSeverityHint: "Hint",
	} {
		d := lsp.ToIDE(protocol.Diagnostic{Severity: sev, Message: "m", Source: "s", Code: "C1",
			Range: protocol.Range{Start: protocol.Position{Line: 1, Character: 2}, End: protocol.Position{Line: 3, Character: 4}}})
		if d.Severity != want || d.Message != "m" || d.Source != "s" || d.Code != "C1" ||
			d.Range.Start.Line != 1 || d.Range.Start.Character != 2 || d.Range.End.Line != 3 || d.Range.End.Character != 4 {
			t.Errorf("ToIDE(severity %v) = %+v, want %s", sev, d, want)
		}
	}
}
