package stdio_test

import (
	"go/build"
	"strings"
	"testing"
)

// The adapter only speaks the protocol (docs/architecture.md): it needs a bridge only through
// its Bridge interface, and the rules (the permission mode, discovery, MCP) are others'.
func TestImportsNoBridgeRule(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		for _, banned := range []string{"/internal/bridge", "/internal/permmode", "/internal/mcp", "/internal/discovery"} {
			if strings.HasSuffix(imp, banned) {
				t.Errorf("editors/stdio imports %s", imp)
			}
		}
	}
}
