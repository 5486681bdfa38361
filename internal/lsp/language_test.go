package lsp

import "testing"

// A server is told ide's id, and the bare extension (not "plaintext") for one ide does not know.
func TestLanguageIDForServers(t *testing.T) {
	for path, want := range map[string]string{"/w/a.go": "go", "/w/x.PYI": "python", "/w/x.nix": "nix", "/w/Makefile": "makefile", "/w/README": ""} {
		if got := languageID(path); got != want {
			t.Errorf("languageID(%q) = %q, want %q", path, got, want)
		}
	}
}
