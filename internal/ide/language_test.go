package ide

import "testing"

// One map for openFile and the language servers: ids both former maps had, any case, Makefile,
// and "plaintext" only for what is not known.
func TestLanguageID(t *testing.T) {
	for path, want := range map[string]string{
		"/w/a.go": "go", "/w/go.mod": "go.mod", "/w/A.GO": "go", "/w/x.tsx": "typescriptreact",
		"/w/x.pyi": "python", "/w/x.hxx": "cpp", "/w/x.sql": "sql", "/w/x.bash": "shellscript",
		"/w/notes.txt": "plaintext", "/w/Makefile": "makefile", "/w/x.nix": "plaintext", "/w/README": "plaintext",
	} {
		if got := LanguageID(path); got != want {
			t.Errorf("LanguageID(%q) = %q, want %q", path, got, want)
		}
	}
	if id, ok := KnownLanguageID("/w/x.nix"); ok {
		t.Errorf("KnownLanguageID(.nix) = %q, true; want unknown", id)
	}
	if id, ok := KnownLanguageID("/w/x.txt"); !ok || id != "plaintext" {
		t.Errorf("KnownLanguageID(.txt) = %q, %v", id, ok)
	}
}
