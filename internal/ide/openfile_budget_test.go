package ide_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
)

// budgetEditor records what the model's budget held when the editor was asked to open a file.
type budgetEditor struct {
	fuzzEditor
	b          *membudget.Budget
	heldAtOpen []int64
}

func (e *budgetEditor) OpenFile(context.Context, ide.OpenFileParams) (ide.OpenFileResult, error) {
	e.heldAtOpen = append(e.heldAtOpen, e.b.Used())
	return ide.OpenFileResult{}, nil
}

// Issue 35 item 5: openFile's read of the file (to find startText) is counted in the memory
// budget while the text is held, refused with a clear tool error when it does not fit, and
// let go before the editor is asked (which may take as long as the user likes).
func TestOpenFileTextHeldInBudget(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat("x\n", 1<<20)+"needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := membudget.New(3 << 20)
	ed := &budgetEditor{b: b}
	m := ide.New(ed, ide.EditorInfo{Name: "T", Caps: fuzzCaps}, []string{dir}, ide.Events{}, nil)
	m.Budget = b
	defer m.Close()
	args, _ := json.Marshal(map[string]any{"filePath": path, "startText": "needle", "makeFrontmost": false})
	open := func() *ide.ToolResult {
		t.Helper()
		res, err := m.CallTool(context.Background(), 0, "openFile", args)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := open(); res.IsError || !strings.Contains(res.Content[0].Text, `"lineCount":1048578`) {
		t.Fatalf("openFile = %+v", res)
	}
	if len(ed.heldAtOpen) != 1 || ed.heldAtOpen[0] != 0 || b.Used() != 0 {
		t.Fatalf("the budget held %v when the editor was asked, %d after: want 0 (the text let go first)", ed.heldAtOpen, b.Used())
	}
	other, _ := b.Take(2<<20, "a proposal")
	res := open()
	if !res.IsError || !strings.Contains(res.Content[0].Text, "big.txt is not opened now: reading big.txt needs 2 MiB") ||
		!strings.Contains(res.Content[0].Text, "memory budget") {
		t.Fatalf("openFile over the budget = %+v, want a clear refusal", res)
	}
	if len(ed.heldAtOpen) != 1 {
		t.Fatal("the editor was asked to open a file that was refused")
	}
	other.Release()
	if b.Used() != 0 {
		t.Fatalf("the budget holds %d after the calls", b.Used())
	}
}

// diagEditor answers getDiagnostics with files.
type diagEditor struct {
	fuzzEditor
	files []ide.FileDiagnostics
}

func (e *diagEditor) Diagnostics(context.Context, string) ([]ide.FileDiagnostics, error) {
	return e.files, nil
}

// Issue 35 item 5: getDiagnostics holds the snapshot, its JSON and the result's copy until it
// returns; they are counted, so a call whose snapshot does not fit in the memory budget gets a
// clear tool error, and the budget is free again after each call.
func TestDiagnosticsSnapshotHeldInBudget(t *testing.T) {
	dir := t.TempDir()
	ed := &diagEditor{}
	for i := range 1000 {
		ed.files = append(ed.files, ide.FileDiagnostics{FilePath: filepath.Join(dir, "f"+strings.Repeat("x", i%7)+".go"),
			Diagnostics: []ide.Diagnostic{{Message: strings.Repeat("m", 1000), Severity: "Error"}}})
	}
	b := membudget.New(64 << 20)
	m := ide.New(ed, ide.EditorInfo{Name: "T", Caps: fuzzCaps}, []string{dir}, ide.Events{}, nil)
	m.Budget = b
	defer m.Close()
	res, err := m.CallTool(context.Background(), 0, "getDiagnostics", json.RawMessage(`{}`))
	if err != nil || res.IsError || b.Used() != 0 {
		t.Fatalf("getDiagnostics: isError %v, %v; the budget holds %d after", res != nil && res.IsError, err, b.Used())
	}
	other, _ := b.Take(63<<20, "proposals")
	res, err = m.CallTool(context.Background(), 0, "getDiagnostics", json.RawMessage(`{}`))
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "the diagnostics of 1000 files needs") ||
		!strings.Contains(res.Content[0].Text, "memory budget") {
		t.Fatalf("getDiagnostics over the budget = %.300q, %v; want a clear refusal", res.Content[0].Text, err)
	}
	other.Release()
	if b.Used() != 0 {
		t.Fatalf("the budget holds %d", b.Used())
	}
}
