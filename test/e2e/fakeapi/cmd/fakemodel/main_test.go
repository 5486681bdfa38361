package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The example script parses into its four turns, ${PWD} filled in; a bad script is a clear error.
func TestReadScript(t *testing.T) {
	turns, err := readScript("example.json")
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if len(turns) != 4 || len(turns[0].Tools) != 1 || turns[0].Tools[0].Name != "Edit" || len(turns[2].Tools) != 1 || turns[3].Text != "Wrote notes.md." {
		t.Fatalf("turns %+v", turns)
	}
	in, _ := turns[0].Tools[0].Input.(map[string]any)
	if in["file_path"] != filepath.Join(wd, "hello.txt") {
		t.Fatalf("file_path %v", in["file_path"])
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`[{"tools": [{"input": {}}]}]`), 0o600)
	if _, err := readScript(bad); err == nil || !strings.Contains(err.Error(), "without a name") {
		t.Fatalf("bad script: %v", err)
	}
}
